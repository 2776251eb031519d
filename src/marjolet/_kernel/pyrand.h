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
 *   randrange(n) (_randbelow)               mk_pyrand_below
 *   shuffle(list(range(32)))                mk_pyrand_deck
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

typedef struct mk_pyrand {
    uint32_t mt[MK_MT_N];
    int index; /* next word to twist and use; MK_MT_N: start a new block */
} mk_pyrand;

/* random.Random(n) for n = abs(seed) given as little-endian 32-bit words
 * (n_words >= 1; CPython drops none of the words it is given: pass
 * exactly the words of n, high zero words removed, at least one). */
void mk_pyrand_seed_words(mk_pyrand *r, const uint32_t *key, size_t n_words);
/* mk_pyrand_seed_words for count <= MK_PYRAND_MANY generators at once
 * (the same states, faster than one by one) */
#define MK_PYRAND_MANY 4
void mk_pyrand_seed_many(mk_pyrand *const *r, const uint32_t *const *keys,
                         const size_t *n_words, int count);
/* random.Random(n) for 0 <= n < 2**64 */
void mk_pyrand_seed_u64(mk_pyrand *r, uint64_t n);
/* random.Random(text) for a str whose UTF-8 form is text[0..len) and
 * whose first byte is not 0 (len <= MK_TEXT_MAX) */
#define MK_TEXT_MAX 192
#define MK_TEXT_KEY_WORDS ((MK_TEXT_MAX + 64 + 3) / 4)
void mk_pyrand_seed_text(mk_pyrand *r, const char *text, size_t len);
/* the key words of that seeding (for mk_pyrand_seed_many); their count */
size_t mk_pyrand_text_key(const char *text, size_t len, uint32_t key[MK_TEXT_KEY_WORDS]);
uint32_t mk_pyrand_u32(mk_pyrand *r);
/* getrandbits(k), 1 <= k <= 64 */
uint64_t mk_pyrand_bits(mk_pyrand *r, int k);
/* randrange(n) = _randbelow(n), n >= 1 */
uint32_t mk_pyrand_below(mk_pyrand *r, uint32_t n);
/* deck = list(range(32)); r.shuffle(deck) (marjolet.cards.shuffled_deck) */
void mk_pyrand_deck(mk_pyrand *r, uint8_t deck[32]);
/* SHA-512 of data[0..len) into out[64] (for the str seeding) */
void mk_sha512(const uint8_t *data, size_t len, uint8_t out[64]);

#endif
