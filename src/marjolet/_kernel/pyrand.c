/* pyrand.c -- CPython's Mersenne Twister and its seeding, see pyrand.h.
 * Reference: CPython Modules/_randommodule.c (init_genrand, init_by_array,
 * genrand_uint32, random_seed, getrandbits) and Lib/random.py (seed
 * version 2, _randbelow_with_getrandbits, shuffle). */
#include <string.h>
#include "pyrand.h"

#define MT_M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER_MASK 0x80000000u
#define LOWER_MASK 0x7fffffffu

static void init_genrand(mk_pyrand *r, uint32_t s) {
    uint32_t *mt = r->mt;
    mt[0] = s;
    for (int i = 1; i < MK_MT_N; i++)
        mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = MK_MT_N;
}

void mk_pyrand_seed_words(mk_pyrand *r, const uint32_t *key, size_t n_words) {
    uint32_t *mt = r->mt;
    init_genrand(r, 19650218u);
    size_t i = 1, j = 0;
    for (size_t k = MK_MT_N > n_words ? MK_MT_N : n_words; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MK_MT_N) {
            mt[0] = mt[MK_MT_N - 1];
            i = 1;
        }
        if (j >= n_words) j = 0;
    }
    for (size_t k = MK_MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MK_MT_N) {
            mt[0] = mt[MK_MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000u;
    r->index = MK_MT_N;
}

void mk_pyrand_seed_u64(mk_pyrand *r, uint64_t n) {
    uint32_t key[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
    mk_pyrand_seed_words(r, key, key[1] ? 2 : 1);
}

void mk_pyrand_seed_text(mk_pyrand *r, const char *text, size_t len) {
    /* int.from_bytes(text + sha512(text).digest()), big-endian, as words */
    uint8_t bytes[192 + 64];
    uint32_t key[(sizeof bytes + 3) / 4];
    if (len > 192) len = 192;
    memcpy(bytes, text, len);
    mk_sha512(bytes, len, bytes + len);
    size_t total = len + 64, words = (total + 3) / 4;
    for (size_t w = 0; w < words; w++) {
        uint32_t v = 0;
        for (int b = 3; b >= 0; b--) { /* the word's bytes, most significant first */
            size_t back = 4 * w + (size_t)b; /* counted from the last byte */
            v = v << 8 | (back < total ? bytes[total - 1 - back] : 0);
        }
        key[w] = v;
    }
    mk_pyrand_seed_words(r, key, words);
}

uint32_t mk_pyrand_u32(mk_pyrand *r) {
    static const uint32_t mag01[2] = {0x0u, MATRIX_A};
    uint32_t *mt = r->mt, y;
    int i = r->index < MK_MT_N ? r->index : 0;
    if (i < MK_MT_N - MT_M) {
        y = (mt[i] & UPPER_MASK) | (mt[i + 1] & LOWER_MASK);
        mt[i] = mt[i + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
    } else if (i < MK_MT_N - 1) {
        y = (mt[i] & UPPER_MASK) | (mt[i + 1] & LOWER_MASK);
        mt[i] = mt[i + (MT_M - MK_MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
    } else {
        y = (mt[MK_MT_N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[MK_MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
    }
    r->index = i + 1;
    y = mt[i];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

uint64_t mk_pyrand_bits(mk_pyrand *r, int k) {
    if (k <= 32) return mk_pyrand_u32(r) >> (32 - k);
    uint64_t lo = mk_pyrand_u32(r);
    return lo | (uint64_t)(mk_pyrand_u32(r) >> (64 - k)) << 32;
}

uint32_t mk_pyrand_below(mk_pyrand *r, uint32_t n) {
    int k = 32 - __builtin_clz(n); /* n.bit_length() */
    uint32_t v;
    do v = mk_pyrand_u32(r) >> (32 - k);
    while (v >= n);
    return v;
}

void mk_pyrand_deck(mk_pyrand *r, uint8_t deck[32]) {
    for (int i = 0; i < 32; i++) deck[i] = (uint8_t)i;
    for (int i = 31; i >= 1; i--) {
        int j = (int)mk_pyrand_below(r, (uint32_t)i + 1);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
}

/* ---- SHA-512 (FIPS 180-4) ---------------------------------------------- */
static const uint64_t SHA_K[80] = {
    0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full,
    0xe9b5dba58189dbbcull, 0x3956c25bf348b538ull, 0x59f111f1b605d019ull,
    0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull, 0xd807aa98a3030242ull,
    0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
    0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull,
    0xc19bf174cf692694ull, 0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull,
    0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull, 0x2de92c6f592b0275ull,
    0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
    0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full,
    0xbf597fc7beef0ee4ull, 0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull,
    0x06ca6351e003826full, 0x142929670a0e6e70ull, 0x27b70a8546d22ffcull,
    0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
    0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull,
    0x92722c851482353bull, 0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull,
    0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull, 0xd192e819d6ef5218ull,
    0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
    0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull,
    0x34b0bcb5e19b48a8ull, 0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull,
    0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull, 0x748f82ee5defb2fcull,
    0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
    0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull,
    0xc67178f2e372532bull, 0xca273eceea26619cull, 0xd186b8c721c0c207ull,
    0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull, 0x06f067aa72176fbaull,
    0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
    0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull,
    0x431d67c49c100d4cull, 0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull,
    0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull,
};
static const uint64_t SHA_H0[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
    0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
    0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

#define ROR(x, n) ((x) >> (n) | (x) << (64 - (n)))

static void sha_block(uint64_t h[8], const uint8_t *p) {
    uint64_t w[80];
    for (int t = 0; t < 16; t++) {
        uint64_t v = 0;
        for (int b = 0; b < 8; b++) v = v << 8 | p[8 * t + b];
        w[t] = v;
    }
    for (int t = 16; t < 80; t++) {
        uint64_t s0 = ROR(w[t - 15], 1) ^ ROR(w[t - 15], 8) ^ (w[t - 15] >> 7);
        uint64_t s1 = ROR(w[t - 2], 19) ^ ROR(w[t - 2], 61) ^ (w[t - 2] >> 6);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 80; t++) {
        uint64_t S1 = ROR(e, 14) ^ ROR(e, 18) ^ ROR(e, 41);
        uint64_t ch = (e & f) ^ (~e & g);
        uint64_t t1 = hh + S1 + ch + SHA_K[t] + w[t];
        uint64_t S0 = ROR(a, 28) ^ ROR(a, 34) ^ ROR(a, 39);
        uint64_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint64_t t2 = S0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void mk_sha512(const uint8_t *data, size_t len, uint8_t out[64]) {
    uint64_t h[8];
    memcpy(h, SHA_H0, sizeof h);
    size_t done = 0;
    for (; len - done >= 128; done += 128) sha_block(h, data + done);
    uint8_t last[256] = {0};
    size_t rest = len - done, blocks = rest + 17 <= 128 ? 1 : 2;
    memcpy(last, data + done, rest);
    last[rest] = 0x80;
    uint64_t bits = (uint64_t)len * 8; /* messages below 2^61 bytes: high 64 bits 0 */
    for (int b = 0; b < 8; b++) last[128 * blocks - 1 - b] = (uint8_t)(bits >> (8 * b));
    for (size_t i = 0; i < blocks; i++) sha_block(h, last + 128 * i);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 8; b++) out[8 * i + b] = (uint8_t)(h[i] >> (56 - 8 * b));
}
