/*
 * pyrand.h -- Python's random.Random in C, draw for draw.
 *
 * The research environments (vecenv.c) must deal exactly the decks that
 * marjolet.match deals and draw exactly the seeds that
 * marjolet.rl.episode.SeedStream draws, so that a batch in C and the
 * Python adapters agree to the bit. Those come from CPython's Mersenne
 * Twister, seeded from an int or from a str (version 2 seeding: the bytes
 * followed by their SHA-512 digest, read as one big-endian integer). This
 * file reproduces:
 *   random.Random(int) / random.Random(str)  mk_pyrand_seed_words / _seed_text
 *   getrandbits(k), k <= 64                 mk_pyrand_bits
 *   randrange(n) (_randbelow)               mk_pyhead_below
 *   shuffle(list(range(32)))                mk_pyhead_deck
 * The state is the caller's (re-entrant); the twist is done one word at a
 * time as the words are used, which yields the same outputs as CPython's
 * whole-block twist (each new word reads the same old and new words) and
 * costs nothing for the words a short-lived generator never uses.
 */
#ifndef MARJOLET_PYRAND_H
#define MARJOLET_PYRAND_H

#include <stddef.h>
#include <stdint.h>

#define MK_MT_N 624

/* Where the C library supports it (glibc's ifunc), a function marked
 * MK_VEC_CLONES is compiled twice, for AVX2 and for the baseline
 * processor, and the loader picks one: the same C, whose loops over lanes
 * or cards the AVX2 build turns into wider vectors (the batch seeding
 * below, the observation tensor). Elsewhere it is one ordinary function. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MK_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef MK_VEC_CLONES
#define MK_VEC_CLONES
#endif

typedef struct mk_pyrand {
    uint32_t mt[MK_MT_N];
    int index; /* next word to twist and use; MK_MT_N: start a new block */
} mk_pyrand;

/* random.Random(n) for n = abs(seed) given as little-endian 32-bit words
 * (n_words >= 1; CPython drops none of the words it is given: pass
 * exactly the words of n, high zero words removed, at least one). */
void mk_pyrand_seed_words(mk_pyrand *r, const uint32_t *key, size_t n_words);
/* random.Random(n) for 0 <= n < 2**64 */
void mk_pyrand_seed_u64(mk_pyrand *r, uint64_t n);
/* random.Random(text) for a str whose UTF-8 form is text[0..len) and
 * whose first byte is not 0 (len <= MK_TEXT_MAX) */
#define MK_TEXT_MAX 192
#define MK_TEXT_KEY_WORDS ((MK_TEXT_MAX + 64 + 3) / 4)
void mk_pyrand_seed_text(mk_pyrand *r, const char *text, size_t len);
/* the key words of that seeding (for mk_pyhead_init); their count */
size_t mk_pyrand_text_key(const char *text, size_t len, uint32_t key[MK_TEXT_KEY_WORDS]);
uint32_t mk_pyrand_u32(mk_pyrand *r);
/* getrandbits(k), 1 <= k <= 64 */
uint64_t mk_pyrand_bits(mk_pyrand *r, int k);

/*
 * Short-lived generators, seeded by the batch (mk_pyhead).
 *
 * A research episode seeds up to three generators (the first dealer's, the
 * deck's, the random bot's) and draws a few dozen words from each. Seeding
 * is a chain of 1,247 dependent steps per generator, so the batch seeds
 * many generators side by side: MK_LANES generators whose keys have the
 * same length form a vector (the compiler turns the lane loop into SIMD
 * code), and up to MK_HEAD_VECS vectors run in lockstep. Of each generator
 * it keeps the first MK_HEAD outputs (the head); a generator drawn past its
 * head is seeded again on its own, its head skipped, and goes on from
 * there (`full`), so the outputs are always CPython's.
 */
#define MK_LANES 8
#define MK_HEAD_VECS 8
#define MK_HEAD 96 /* a deck needs about 46 words, 75 at most in 200,000 shuffles */

typedef struct mk_pyhead {
    int avail;             /* valid entries of out (0: not seeded by the batch) */
    int used;              /* outputs drawn so far */
    int spilled;           /* full serves the outputs from `used` on */
    int n_words;
    int text_len;          /* > 0: seeded from a str whose bytes wait in key, unhashed */
    uint32_t out[MK_HEAD]; /* the first outputs (genrand_uint32) */
    uint32_t key[MK_TEXT_KEY_WORDS];
    mk_pyrand full;
} mk_pyhead;

/* the batch seeding's scratch memory (the caller's: no globals) */
typedef struct mk_pyrand_work {
    uint32_t mt[MK_HEAD_VECS][MK_MT_N][MK_LANES];
    uint32_t key[MK_HEAD_VECS][MK_TEXT_KEY_WORDS][MK_LANES];
    uint32_t out[MK_HEAD][MK_LANES];
} mk_pyrand_work;

/* The generator random.Random(n), n's words in key (1..MK_TEXT_KEY_WORDS
 * of them), not seeded yet: mk_pyrand_heads seeds it, or the first draw
 * seeds it alone. */
void mk_pyhead_init(mk_pyhead *h, const uint32_t *key, size_t n_words);
/* The generator random.Random(text) (a str of len <= MK_TEXT_MAX UTF-8
 * bytes, not starting with 0): its digest waits for mk_pyrand_heads, which
 * hashes the texts of a batch together. */
void mk_pyhead_init_text(mk_pyhead *h, const char *text, size_t len);
/* Seed `count` generators (mk_pyhead_init'ed) and fill their heads. */
void mk_pyrand_heads(mk_pyhead *const *heads, int count, mk_pyrand_work *w);
/* the next output past the head (the generator seeded again alone) */
uint32_t mk_pyhead_spill(mk_pyhead *h);
static inline uint32_t mk_pyhead_u32(mk_pyhead *h) {
    return h->used < h->avail ? h->out[h->used++] : mk_pyhead_spill(h);
}
/* randrange(n) = _randbelow(n), n >= 1 */
uint32_t mk_pyhead_below(mk_pyhead *h, uint32_t n);
/* deck = list(range(32)); r.shuffle(deck) (marjolet.cards.shuffled_deck) */
void mk_pyhead_deck(mk_pyhead *h, uint8_t deck[32]);
/* SHA-512 of data[0..len) into out[64] (for the str seeding) */
void mk_sha512(const uint8_t *data, size_t len, uint8_t out[64]);

#endif
