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

/* init_genrand(19650218): the start of every init_by_array */
static const uint32_t MT_INIT[MK_MT_N] = {
    0x012bd6aau, 0x82d2ab13u, 0x342096b7u, 0x54846536u, 0x2ae75db7u, 0x826fe838u,
    0x2b03a8e8u, 0x6c2dcb8fu, 0xa8e24d0eu, 0xe7d7d1c5u, 0x3bd2b928u, 0x4f5174d3u,
    0xac6578e6u, 0xcff6b601u, 0xe5cae0d8u, 0xc55ce976u, 0x54cab839u, 0x9a18a629u,
    0xabd39209u, 0xa5ed816au, 0xfaccb61cu, 0x8f137150u, 0x8b8e9770u, 0x9a6bc211u,
    0xe9e4bc97u, 0x48359a7du, 0xb6364f06u, 0xccd250afu, 0x20d9dff8u, 0x4e9914f5u,
    0x7147d862u, 0xd2da5a2eu, 0x7da2a8e1u, 0xbbac8081u, 0x2369ced1u, 0x6c237198u,
    0x48f5b281u, 0x26f5eca5u, 0x0f2daa3fu, 0xa8d8e202u, 0xdc832a28u, 0x7c7da620u,
    0xd261342fu, 0x02792187u, 0xab6c796fu, 0xfcc23d2eu, 0x539a37efu, 0x73486f15u,
    0xb8918714u, 0xac4f11dfu, 0x04cc5163u, 0x39df1742u, 0xb3447f3eu, 0x2cc14ee1u,
    0x2fa187fbu, 0xd85cf93eu, 0xaabafa49u, 0xe7c3e2d0u, 0x7c706879u, 0xbb896f93u,
    0xc2e49d71u, 0xa2922037u, 0x94561227u, 0xb0adf5d8u, 0x7e29a942u, 0xf6d9a2b0u,
    0xd2d3fbe1u, 0xda9c526du, 0x90cb63aau, 0x922b398du, 0xb3c43cb1u, 0x1dccbde6u,
    0x8cb10206u, 0xfa05efddu, 0x08c770e0u, 0xc83768abu, 0x61763294u, 0xf2c6b216u,
    0xd8447f97u, 0xe85889b3u, 0x106d82c0u, 0xa96d5611u, 0xb9b820d1u, 0xb8fade92u,
    0x1204df24u, 0x01524d89u, 0x7bb5e863u, 0xdacf2101u, 0xeb701822u, 0x750a2e5eu,
    0xf86e22d5u, 0x2ff244c9u, 0x3ee3b4a9u, 0xe823b80au, 0x87d36cebu, 0x0211a94cu,
    0xf5a5775cu, 0xcec2efdcu, 0x885ffa5du, 0x17739edeu, 0x20b47bfau, 0x5963b407u,
    0x13d73cc4u, 0x5ccbddbbu, 0x3e2d04cau, 0xf8d8fe1bu, 0x603f17e2u, 0x27e1e7fau,
    0x711b500eu, 0xc2079d58u, 0x51b3c855u, 0x5c6efd93u, 0x647b2d0au, 0x6f00a8c8u,
    0x8f1528bfu, 0x9f513804u, 0x623050d2u, 0xd215ceb4u, 0x693b7da9u, 0xaa4f7bbfu,
    0xd8bef709u, 0xaed1d16bu, 0x47b7cfe7u, 0x61111c39u, 0xd9621a94u, 0xb2104d10u,
    0xad2b0a98u, 0x9cdd9941u, 0xef4752efu, 0x66f8039du, 0x430be90eu, 0x86d4fa6eu,
    0x94fe9920u, 0x90539cefu, 0xf672bf07u, 0x8c9a811bu, 0x3bba5065u, 0x144ac562u,
    0xc2cf5234u, 0x424bdf3eu, 0x7120cb67u, 0xc693d5cbu, 0xae336076u, 0xcc0f2253u,
    0x4b855a20u, 0x8bbf3896u, 0x73c486f6u, 0xbd846f06u, 0x5dc4f128u, 0x47e116c2u,
    0xb4515685u, 0xfd1662dau, 0x14aa2135u, 0x77577782u, 0x6d0c4249u, 0xc546af03u,
    0x718a0b9cu, 0x38f89a8eu, 0xa6acf8a4u, 0x27d8f01du, 0x9de14111u, 0xa136d820u,
    0x353b780cu, 0x2c08c95fu, 0xa8d44a1fu, 0x7a35c316u, 0x063e47b9u, 0xcd034da4u,
    0x3a6d028bu, 0x192b6480u, 0xe667272au, 0x78c664d8u, 0x202ceb49u, 0xf6a1e57au,
    0x43fc4a6bu, 0x97421681u, 0xecb3fd5fu, 0x731d31fdu, 0xb828951eu, 0x4392d0bfu,
    0x17d409aau, 0xdb79cac7u, 0xffebe40au, 0x3d58c944u, 0xe898cc8cu, 0x75aa3c24u,
    0xc75c8853u, 0xa6a4984bu, 0xca6e2689u, 0x15db0f2fu, 0x18d62549u, 0x376fc78cu,
    0x35b7a6fcu, 0x5ab5be2du, 0xcfad941eu, 0x1c89f534u, 0xbb129248u, 0xf6a351f7u,
    0xe2f6ea0au, 0xe0e82754u, 0xc006151bu, 0xb7582b41u, 0xf7c4ed39u, 0x183ba2adu,
    0xe850c40du, 0x252ad853u, 0x85f0c48du, 0x6517143au, 0xad8b8f17u, 0xed34b11au,
    0x2c3f40afu, 0xe75b2cdeu, 0x8805f905u, 0x9fd0ff98u, 0xdb744298u, 0x02c03afeu,
    0xba5b350eu, 0xd8b35a95u, 0x3c570408u, 0xdbb4e003u, 0x9a3c60dcu, 0x77bb0673u,
    0x985a8dd8u, 0x6a99a1e1u, 0x335dbe40u, 0xa28c5021u, 0x2d3359b1u, 0x70191cb8u,
    0x7f5656e1u, 0x51ae2745u, 0x2f94e2bau, 0x1e28fe49u, 0x964064b5u, 0xb24eac1cu,
    0xcff7f6c0u, 0xc337b6dau, 0x61c44589u, 0xe25d3795u, 0xfea0351cu, 0xb97b8d2au,
    0x086119b8u, 0x991a9e89u, 0xa025f0c9u, 0xb661a40au, 0x1186001cu, 0x70b10801u,
    0x6b2028f6u, 0xcc5d596au, 0x538c7865u, 0x9d95046du, 0xde3327c5u, 0xa8e1a819u,
    0x60bac6a3u, 0xe46b10e7u, 0x1083aef2u, 0xdd318879u, 0xf9ea2322u, 0xc8138606u,
    0x288f8dfbu, 0x997b580au, 0x57fe042cu, 0xc0aebbc6u, 0xc5cf82bfu, 0xfaf93133u,
    0xf7f318f8u, 0x7e242f10u, 0x96edabbfu, 0x2ad7e79cu, 0x9764dd98u, 0xbc98d8cfu,
    0x9dee3eefu, 0x8326a990u, 0xa9fe09aau, 0x27fcb859u, 0x9bcb5d2fu, 0xd453d8d4u,
    0x46009ce7u, 0x447efdd3u, 0x84ad86f0u, 0xfe4bc091u, 0xb9ef1cb2u, 0x5a808289u,
    0x6c4648c2u, 0x9600110au, 0x0e5c0144u, 0x9fd5e4f1u, 0x4d8e5ffdu, 0xba6dbb8bu,
    0x33664f2du, 0x2df752e2u, 0x1a1ca64cu, 0x3e60491fu, 0x36f7715fu, 0x48e492a0u,
    0x030d03abu, 0x68c5f69eu, 0x196e64e3u, 0xa2c049b8u, 0x9967a18cu, 0x4e39bc31u,
    0x27ccf01cu, 0xc11db839u, 0x99e6ba10u, 0xe0190c49u, 0x5f7b7462u, 0xafb2e740u,
    0x3a25903cu, 0x4ca604dfu, 0xe02cbacau, 0x491a4382u, 0x0212bee5u, 0xadd0de90u,
    0x0881f2d2u, 0x21f53013u, 0xf0fb23b9u, 0xeb49a39du, 0x5def1c92u, 0xd1a5f23cu,
    0xb8d54b19u, 0x831515e6u, 0xc944a834u, 0xf39ccdf4u, 0xdcd772b5u, 0x585da911u,
    0x5bdd4494u, 0x6412cd0eu, 0x7a90ef31u, 0xb57f0f37u, 0x60b75e31u, 0x1d0fda39u,
    0xf6989ac7u, 0xe063f49fu, 0x859afed8u, 0x987f374fu, 0x3de407afu, 0x7cdcb05au,
    0x93ef4837u, 0xc07edb3au, 0xdfecffcfu, 0x3bf918cfu, 0xf93691ffu, 0xd48b75c1u,
    0x8d5848e0u, 0x5903b481u, 0x098eb7d8u, 0x4c992191u, 0xd6504f2au, 0xfe2b2d88u,
    0x45355c33u, 0x79c22317u, 0x2bf89f0cu, 0xcf882d1bu, 0x1c83a3d8u, 0x4d863d99u,
    0x3c14a65au, 0x45a1cce5u, 0xd9b7db58u, 0xad6a3f4cu, 0xe9edb92cu, 0x672d37f2u,
    0xf36d1f47u, 0xfaa4bb3du, 0x51e40ee0u, 0xaf174930u, 0xa2b9a426u, 0x391107a1u,
    0xc2342cf3u, 0x05322c1fu, 0x2f4100abu, 0x96adc7e8u, 0xa1f21ac4u, 0xb8428791u,
    0x05d22973u, 0x6a3de6d4u, 0x36c7107fu, 0x2bd67a92u, 0x05347f12u, 0x3734c593u,
    0x70929f79u, 0xdd7823d3u, 0x6640728cu, 0x7295a81eu, 0xf8dcecb9u, 0x5aeef0e1u,
    0xd54ce9e0u, 0x79b7c310u, 0xde5b1037u, 0xd7053a07u, 0xe7380918u, 0xd9b80c2cu,
    0x8d6af711u, 0xcef1a706u, 0xa4db9381u, 0xd9274f38u, 0xc485d6d1u, 0xa0822465u,
    0x6ba47d2fu, 0x532502b3u, 0xc6e953c8u, 0x4672b3a6u, 0x8af64173u, 0x12444c26u,
    0xdebc6290u, 0x67189092u, 0xca14b693u, 0x8dcf1865u, 0xe594c139u, 0xefae4779u,
    0x40587ebau, 0x19d91460u, 0x6d2c6b7au, 0xac683c22u, 0xf22cda3cu, 0x1836d378u,
    0x4d14a7f6u, 0x42ca7512u, 0xea0c5d1fu, 0x5078b9adu, 0xfeb24e7eu, 0xc9c4ddf4u,
    0x3b35c317u, 0x2b3e48b8u, 0x01852a3eu, 0x2cd6da1du, 0xde489419u, 0x8e9a59ebu,
    0x9e622b97u, 0x1320f074u, 0xafd8f370u, 0x3afe0fa7u, 0x1e2d8d91u, 0x53b274e4u,
    0x5439ad09u, 0x33928dd9u, 0x33aa194fu, 0x6ed044deu, 0x231f84afu, 0x2e3a01c0u,
    0x54127276u, 0x5fc9d9aau, 0xe7cc652fu, 0x29fc7815u, 0xd1719f03u, 0xc8eabcbbu,
    0xaca2ee54u, 0x1a2e0fabu, 0x8c3bb335u, 0x60f72572u, 0x0eb1531fu, 0x0b4a63fcu,
    0x4fbf502eu, 0xddaccb4eu, 0xf9136c25u, 0xa69402c3u, 0x6d2560ebu, 0x6f027819u,
    0x86e63b40u, 0xe559b4d3u, 0x2fd7a7dau, 0xd7dee4cdu, 0x9d048512u, 0xc16e111du,
    0x5767d0a4u, 0x5b209fe8u, 0x14d1c9bdu, 0xbbe5be62u, 0xc9257db2u, 0x87e551a8u,
    0x49d333e6u, 0x066b1af8u, 0x36785daeu, 0xdf61157du, 0xd43fea8eu, 0xd798007au,
    0x7687f297u, 0x6e8efd09u, 0x6f0b1e04u, 0xb09686d6u, 0x5956a782u, 0x776a338eu,
    0xaf66e04bu, 0x2f9c8faeu, 0xe76acf88u, 0xc70246bau, 0xb6cde9e1u, 0x7a9cc374u,
    0xf8a5bc0fu, 0xff599ea3u, 0x8a9f3708u, 0x9e8b12dbu, 0x09e39287u, 0xa5e4102eu,
    0x80d5ef48u, 0x147c041fu, 0xa3fb3929u, 0xd7e292e6u, 0x0d438349u, 0xbfe3debeu,
    0x0e3d7e1eu, 0xa192d1c9u, 0xb1bf6a0bu, 0x4282a882u, 0x094f98a5u, 0x0d9a8810u,
    0x89384048u, 0x379ef92bu, 0xf93d52f1u, 0x83333d75u, 0x115cf0efu, 0x0123f748u,
    0xd57e1966u, 0x041a13d8u, 0x3dd06e38u, 0x91bf7619u, 0x957b0da9u, 0x5789e97au,
    0x9db8f28bu, 0xa1820312u, 0x215ec756u, 0x9e6bacf5u, 0x0ecc6e7bu, 0x27246b90u,
    0x9fde81dau, 0xd32dd443u, 0xa56aff4cu, 0x68f979d3u, 0xd95c73e8u, 0x8aef80c6u,
    0x31c2b364u, 0xeb8d4c85u, 0x2c5ce8f0u, 0xd7e058c3u, 0xa841c5d4u, 0x45ac9583u,
    0xc7a79060u, 0x2815f426u, 0x455bab16u, 0xcd5ad12cu, 0x2b0fb0a5u, 0xd33c0034u,
    0xa84a86cfu, 0x7325e5feu, 0x940236b9u, 0xf746ace6u, 0xb7abc579u, 0xadd0bea8u,
    0x380a3534u, 0xf6ebd3a7u, 0x98c945d8u, 0xdec03b27u, 0x8f799b5au, 0x0e8463dfu,
    0x62c6c023u, 0xee2a0193u, 0x3c58affau, 0x8d0039cdu, 0xa8af97d7u, 0x885ae636u,
    0xac7aa8b2u, 0x8d7abf9fu, 0xfb43a021u, 0x0b4e619bu, 0x77657759u, 0xcb4e2febu,
    0x3cd410bcu, 0x41c33861u, 0x75d0a016u, 0x359c7a4au, 0x7433db6au, 0xbcced670u,
    0x237b9f34u, 0x7264a5bfu, 0xae9a1432u, 0x24e7a92du, 0x2529d5ffu, 0x7affe6dau,
    0x2d7e49a7u, 0xffce7024u, 0xeb8820a5u, 0xb2b7b9c1u, 0x2d3aa733u, 0x52034464u,
    0x95a70b1fu, 0xf9a4e9b8u, 0x07424c0fu, 0xc0450b34u, 0x50beddfdu, 0x61fd72b7u,
    0x365baa1au, 0x1ee8088fu, 0xee08e9b9u, 0x8aaec2b1u, 0x14099defu, 0x32d9389cu,
    0xab42d3deu, 0xefc2541fu, 0xb3722d60u, 0x7c035bffu, 0x65803b8cu, 0xc850f5f8u,
    0xf971615fu, 0x9059a7a5u, 0xf7a8863du, 0xb90626d1u, 0x5df93e9bu, 0x240c1f1fu,
    0xa348e099u, 0xf4309286u, 0x7335fdd9u, 0x6a0dc099u, 0x97a6565au, 0x553d2b1bu,
    0x82e8eda6u, 0xfc8e8819u, 0x9bc79ea8u, 0x58509579u, 0xae1032c0u, 0x92dbdaf3u,
    0x417f5c7fu, 0xaf30ee21u, 0x94b3b13bu, 0xb94b6eeau, 0x6174ebf6u, 0xad2949e2u,
};

/* init_by_array, one step of its first loop (key added) and of its second */
#define STEP1(old, p, key, j) (((old) ^ (((p) ^ ((p) >> 30)) * 1664525u)) + (key) + (uint32_t)(j))
#define STEP2(old, p, i) (((old) ^ (((p) ^ ((p) >> 30)) * 1566083941u)) - (uint32_t)(i))

void mk_pyrand_seed_words(mk_pyrand *r, const uint32_t *key, size_t n_words) {
    /* CPython's init_by_array after init_genrand(19650218); the last word
     * of the chain stays in a register (p), not reloaded from the store */
    uint32_t *mt = r->mt, p = MT_INIT[0];
    memcpy(mt, MT_INIT, sizeof MT_INIT);
    size_t i = 1, j = 0;
    for (size_t k = n_words > MK_MT_N ? n_words : MK_MT_N; k; k--) {
        mt[i] = p = STEP1(mt[i], p, key[j], j);
        if (++j >= n_words) j = 0;
        if (++i >= MK_MT_N) mt[0] = p, i = 1;
    }
    for (size_t k = MK_MT_N - 1; k; k--) {
        mt[i] = p = STEP2(mt[i], p, i);
        if (++i >= MK_MT_N) mt[0] = p, i = 1;
    }
    mt[0] = 0x80000000u;
    r->index = MK_MT_N;
}

/* ---- seeding in the batch: mk_pyhead ----------------------------------- */

#if defined(__GNUC__)
#define MK_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MK_ALWAYS_INLINE inline
#endif
/* unrolled loops over the vectors keep each vector's last words in registers */
#if defined(__GNUC__) && !defined(__clang__)
#define MK_UNROLL _Pragma("GCC unroll 8")
#else
#define MK_UNROLL
#endif
/* one step of init_by_array in every lane of a vector: row = the step of
 * prev (the lanes' last words) with old (first loop: add key[j] + j, in
 * key_j) */
static MK_ALWAYS_INLINE void lanes_step1(uint32_t *restrict row, uint32_t *restrict prev,
                                         const uint32_t *restrict old, size_t old_stride,
                                         const uint32_t *restrict key_j) {
    for (int l = 0; l < MK_LANES; l++)
        row[l] = prev[l] = STEP1(old[l * old_stride], prev[l], key_j[l], 0);
}

static MK_ALWAYS_INLINE void lanes_step2(uint32_t *restrict row, uint32_t *restrict prev,
                                         size_t i) {
    for (int l = 0; l < MK_LANES; l++) row[l] = prev[l] = STEP2(row[l], prev[l], i);
}

static MK_ALWAYS_INLINE void lanes_copy(uint32_t *restrict row, const uint32_t *restrict prev) {
    for (int l = 0; l < MK_LANES; l++) row[l] = prev[l];
}

/* init_by_array of `count` vectors of MK_LANES generators, in lockstep:
 * vector g's keys have n[g] words (fewer than MK_MT_N, so the first loop
 * runs MK_MT_N steps), word j of lane l plus j in key[g][j][l]; the states are
 * written transposed, word i of lane l in mt[g][i][l]. Each lane's chain
 * is serial: the lanes and the vectors are what runs side by side. */
static MK_ALWAYS_INLINE void seed_vectors(mk_pyrand_work *w, const size_t *n, const int count) {
    uint32_t prev[MK_HEAD_VECS][MK_LANES], init[MK_LANES];
    size_t j[MK_HEAD_VECS];
    for (int l = 0; l < MK_LANES; l++) init[l] = MT_INIT[0];
    for (int g = 0; g < count; g++) {
        j[g] = 0;
        lanes_copy(prev[g], init);
    }
    /* the first MK_MT_N - 1 steps read init_genrand's words from MT_INIT */
    for (size_t i = 1; i < MK_MT_N; i++) {
        MK_UNROLL
        for (int g = 0; g < count; g++) {
            lanes_step1(w->mt[g][i], prev[g], &MT_INIT[i], 0, w->key[g][j[g]]);
            if (++j[g] >= n[g]) j[g] = 0;
        }
    }
    /* the wrap (word 0 takes the last word), then the last step at i = 1 */
    for (int g = 0; g < count; g++) {
        lanes_copy(w->mt[g][0], prev[g]);
        lanes_copy(init, w->mt[g][1]);
        lanes_step1(w->mt[g][1], prev[g], init, 1, w->key[g][j[g]]);
    }
    size_t i = 2;
    for (size_t k = MK_MT_N - 1; k; k--) {
        MK_UNROLL
        for (int g = 0; g < count; g++) lanes_step2(w->mt[g][i], prev[g], i);
        if (++i >= MK_MT_N) {
            for (int g = 0; g < count; g++) lanes_copy(w->mt[g][0], prev[g]);
            i = 1;
        }
    }
    for (int l = 0; l < MK_LANES; l++) init[l] = 0x80000000u;
    for (int g = 0; g < count; g++) lanes_copy(w->mt[g][0], init);
}

/* the first MK_HEAD outputs of the lanes of vector g (genrand_uint32's
 * block twist and tempering: words below MK_MT_N - MT_M read old words
 * only) into w->out */
static MK_ALWAYS_INLINE void head_outputs(mk_pyrand_work *w, int g) {
    for (int k = 0; k < MK_HEAD; k++) {
        for (int l = 0; l < MK_LANES; l++) {
            uint32_t y = (w->mt[g][k][l] & UPPER_MASK) | (w->mt[g][k + 1][l] & LOWER_MASK);
            y = w->mt[g][k + MT_M][l] ^ (y >> 1) ^ ((0u - (y & 1u)) & MATRIX_A);
            y ^= (y >> 11);
            y ^= (y << 7) & 0x9d2c5680u;
            y ^= (y << 15) & 0xefc60000u;
            y ^= (y >> 18);
            w->out[k][l] = y;
        }
    }
}
_Static_assert(MK_HEAD + MT_M < MK_MT_N, "a head reads words of the first block only");

/* seed `count` vectors whose lanes are heads[first[g] .. first[g] + lanes[g]) */
static MK_ALWAYS_INLINE void seed_group(mk_pyhead *const *heads, const int *first,
                                        const int *lanes, mk_pyrand_work *w, const int count) {
    size_t n[MK_HEAD_VECS];
    for (int g = 0; g < count; g++) {
        n[g] = (size_t)heads[first[g]]->n_words;
        for (int l = 0; l < MK_LANES; l++) { /* idle lanes repeat the last one */
            const mk_pyhead *h = heads[first[g] + (l < lanes[g] ? l : lanes[g] - 1)];
            for (size_t k = 0; k < n[g]; k++) w->key[g][k][l] = h->key[k] + (uint32_t)k;
        }
    }
    seed_vectors(w, n, count);
    for (int g = 0; g < count; g++) {
        head_outputs(w, g);
        for (int l = 0; l < lanes[g]; l++) {
            mk_pyhead *h = heads[first[g] + l];
            for (int k = 0; k < MK_HEAD; k++) h->out[k] = w->out[k][l];
            h->avail = MK_HEAD;
        }
    }
}

MK_VEC_CLONES static void seed_groups(mk_pyhead *const *heads, const int *first,
                                       const int *lanes, mk_pyrand_work *w, int count) {
    switch (count) { /* each count its own unrolled code */
    case 1: seed_group(heads, first, lanes, w, 1); break;
    case 2: seed_group(heads, first, lanes, w, 2); break;
    case 3: seed_group(heads, first, lanes, w, 3); break;
    case 4: seed_group(heads, first, lanes, w, 4); break;
    case 5: seed_group(heads, first, lanes, w, 5); break;
    case 6: seed_group(heads, first, lanes, w, 6); break;
    case 7: seed_group(heads, first, lanes, w, 7); break;
    default: seed_group(heads, first, lanes, w, 8); break;
    }
}
_Static_assert(MK_HEAD_VECS == 8, "seed_groups: one case a count");

void mk_pyhead_init_text(mk_pyhead *h, const char *text, size_t len) {
    if (len > MK_TEXT_MAX) len = MK_TEXT_MAX;
    memcpy(h->key, text, len); /* the text waits in key's bytes until it is hashed */
    h->text_len = (int)len;
    h->n_words = 0;
    h->avail = h->used = h->spilled = 0;
}

static size_t bytes_key(const uint8_t *bytes, size_t total, uint32_t *key);

/* a text head's key (from the text in key's bytes and the text's digest) */
static void text_head_key(mk_pyhead *h, const uint8_t digest[64]) {
    uint8_t bytes[MK_TEXT_MAX + 64];
    size_t len = (size_t)h->text_len;
    memcpy(bytes, h->key, len);
    memcpy(bytes + len, digest, 64);
    h->n_words = (int)bytes_key(bytes, len + 64, h->key);
    h->text_len = 0;
}

static void text_heads_keys(mk_pyhead *const *heads, int count);

void mk_pyhead_init(mk_pyhead *h, const uint32_t *key, size_t n_words) {
    if (n_words > MK_TEXT_KEY_WORDS) n_words = MK_TEXT_KEY_WORDS; /* never: callers' keys fit */
    memcpy(h->key, key, n_words * sizeof *key);
    h->n_words = (int)n_words;
    h->text_len = 0;
    h->avail = h->used = h->spilled = 0;
}

void mk_pyrand_heads(mk_pyhead *const *heads_in, int count, mk_pyrand_work *w) {
    text_heads_keys(heads_in, count);
    /* order the heads by key length (insertion sort: a few dozen), then cut
     * runs of one length into vectors of at most MK_LANES */
    mk_pyhead *heads[4 * MK_LANES * MK_HEAD_VECS];
    while (count > 0) {
        int m = count < (int)(sizeof heads / sizeof *heads) ? count : (int)(sizeof heads / sizeof *heads);
        for (int a = 0; a < m; a++) {
            mk_pyhead *h = heads_in[a];
            int b = a;
            for (; b > 0 && heads[b - 1]->n_words > h->n_words; b--) heads[b] = heads[b - 1];
            heads[b] = h;
        }
        int first[MK_HEAD_VECS], lanes[MK_HEAD_VECS], g = 0;
        for (int a = 0; a < m;) {
            int l = 1;
            while (l < MK_LANES && a + l < m && heads[a + l]->n_words == heads[a]->n_words) l++;
            first[g] = a, lanes[g] = l, g++;
            a += l;
            if (g == MK_HEAD_VECS || a == m) {
                seed_groups(heads, first, lanes, w, g);
                g = 0;
            }
        }
        heads_in += m;
        count -= m;
    }
}

uint32_t mk_pyhead_spill(mk_pyhead *h) {
    if (!h->spilled) { /* past the head (or never seeded): the generator on its own */
        if (h->text_len) text_heads_keys(&h, 1);
        mk_pyrand_seed_words(&h->full, h->key, (size_t)h->n_words);
        for (int k = 0; k < h->used; k++) (void)mk_pyrand_u32(&h->full);
        h->spilled = 1;
    }
    h->used++;
    return mk_pyrand_u32(&h->full);
}

void mk_pyrand_seed_u64(mk_pyrand *r, uint64_t n) {
    uint32_t key[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
    mk_pyrand_seed_words(r, key, key[1] ? 2 : 1);
}

/* the key words of int.from_bytes(text + digest) (big-endian), bytes[0..total) */
static size_t bytes_key(const uint8_t *bytes, size_t total, uint32_t *key) {
    size_t whole = total / 4, rest = total % 4;
    for (size_t w = 0; w < whole; w++) { /* word w: the 4 bytes that end 4w bytes from the end */
        const uint8_t *p = bytes + total - 4 * w - 4;
        key[w] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    }
    if (rest) { /* the most significant word: the first bytes */
        uint32_t v = 0;
        for (size_t b = 0; b < rest; b++) v = v << 8 | bytes[b];
        key[whole] = v;
    }
    return whole + (rest != 0);
}

size_t mk_pyrand_text_key(const char *text, size_t len, uint32_t key[MK_TEXT_KEY_WORDS]) {
    /* int.from_bytes(text + sha512(text).digest()), big-endian, as words */
    uint8_t bytes[MK_TEXT_MAX + 64];
    if (len > MK_TEXT_MAX) len = MK_TEXT_MAX;
    memcpy(bytes, text, len);
    mk_sha512(bytes, len, bytes + len);
    return bytes_key(bytes, len + 64, key);
}

void mk_pyrand_seed_text(mk_pyrand *r, const char *text, size_t len) {
    uint32_t key[MK_TEXT_KEY_WORDS];
    size_t words = mk_pyrand_text_key(text, len, key);
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

uint32_t mk_pyhead_below(mk_pyhead *h, uint32_t n) {
    int k = 32 - __builtin_clz(n); /* n.bit_length() */
    uint32_t v;
    do v = mk_pyhead_u32(h) >> (32 - k);
    while (v >= n);
    return v;
}

void mk_pyhead_deck(mk_pyhead *h, uint8_t deck[32]) {
    for (int i = 0; i < 32; i++) deck[i] = (uint8_t)i;
    for (int i = 31; i >= 1; i--) {
        int j = (int)mk_pyhead_below(h, (uint32_t)i + 1);
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

/* ---- SHA-512 of short texts, SHA_LANES at a time ------------------------ */

/* Texts of at most SHA_ONE_BLOCK bytes pad to one block; each lane hashes
 * one, the lanes' loops compiled to vector code (MK_VEC_CLONES). */
#define SHA_LANES 4
#define SHA_ONE_BLOCK 111

static MK_ALWAYS_INLINE uint64_t ror64(uint64_t x, int n) { return x >> n | x << (64 - n); }

#define SHA_ROUND(a, b, c, d, e, f, g, h, t)                                                  \
    for (int l = 0; l < SHA_LANES; l++) {                                                     \
        uint64_t t1 = h[l] + (ror64(e[l], 14) ^ ror64(e[l], 18) ^ ror64(e[l], 41)) +         \
                      ((e[l] & f[l]) ^ (~e[l] & g[l])) + SHA_K[t] + w[t][l];                 \
        uint64_t t2 = (ror64(a[l], 28) ^ ror64(a[l], 34) ^ ror64(a[l], 39)) +                \
                      ((a[l] & b[l]) ^ (a[l] & c[l]) ^ (b[l] & c[l]));                       \
        d[l] += t1;                                                                           \
        h[l] = t1 + t2;                                                                       \
    }

/* the digests of SHA_LANES one-block messages, w[0..16) their padded words */
MK_VEC_CLONES static void sha_lanes(uint64_t w[80][SHA_LANES], uint64_t out[8][SHA_LANES]) {
    for (int t = 16; t < 80; t++)
        for (int l = 0; l < SHA_LANES; l++) {
            uint64_t x = w[t - 15][l], y = w[t - 2][l];
            w[t][l] = w[t - 16][l] + (ror64(x, 1) ^ ror64(x, 8) ^ (x >> 7)) + w[t - 7][l] +
                      (ror64(y, 19) ^ ror64(y, 61) ^ (y >> 6));
        }
    uint64_t a[SHA_LANES], b[SHA_LANES], c[SHA_LANES], d[SHA_LANES], e[SHA_LANES],
        f[SHA_LANES], g[SHA_LANES], h[SHA_LANES];
    for (int l = 0; l < SHA_LANES; l++) {
        a[l] = SHA_H0[0], b[l] = SHA_H0[1], c[l] = SHA_H0[2], d[l] = SHA_H0[3];
        e[l] = SHA_H0[4], f[l] = SHA_H0[5], g[l] = SHA_H0[6], h[l] = SHA_H0[7];
    }
    for (int t = 0; t < 80; t += 8) { /* the eight registers renamed, not moved */
        SHA_ROUND(a, b, c, d, e, f, g, h, t)
        SHA_ROUND(h, a, b, c, d, e, f, g, t + 1)
        SHA_ROUND(g, h, a, b, c, d, e, f, t + 2)
        SHA_ROUND(f, g, h, a, b, c, d, e, t + 3)
        SHA_ROUND(e, f, g, h, a, b, c, d, t + 4)
        SHA_ROUND(d, e, f, g, h, a, b, c, t + 5)
        SHA_ROUND(c, d, e, f, g, h, a, b, t + 6)
        SHA_ROUND(b, c, d, e, f, g, h, a, t + 7)
    }
    for (int l = 0; l < SHA_LANES; l++) {
        out[0][l] = SHA_H0[0] + a[l], out[1][l] = SHA_H0[1] + b[l];
        out[2][l] = SHA_H0[2] + c[l], out[3][l] = SHA_H0[3] + d[l];
        out[4][l] = SHA_H0[4] + e[l], out[5][l] = SHA_H0[5] + f[l];
        out[6][l] = SHA_H0[6] + g[l], out[7][l] = SHA_H0[7] + h[l];
    }
}

/* the keys of the text heads among heads: short texts SHA_LANES at a time,
 * longer ones one by one */
static void text_heads_keys(mk_pyhead *const *heads, int count) {
    uint64_t w[80][SHA_LANES], out[8][SHA_LANES];
    mk_pyhead *lane[SHA_LANES];
    uint8_t digest[64];
    int n = 0;
    for (int k = 0; k <= count; k++) {
        mk_pyhead *hd = k < count ? heads[k] : NULL;
        if (hd && hd->text_len > SHA_ONE_BLOCK) {
            mk_sha512((const uint8_t *)hd->key, (size_t)hd->text_len, digest);
            text_head_key(hd, digest);
            continue;
        }
        if (hd && hd->text_len) {
            uint8_t block[128] = {0};
            size_t len = (size_t)hd->text_len;
            memcpy(block, hd->key, len);
            block[len] = 0x80;
            uint64_t bits = (uint64_t)len * 8;
            for (int b = 0; b < 8; b++) block[127 - b] = (uint8_t)(bits >> (8 * b));
            for (int t = 0; t < 16; t++) {
                uint64_t v = 0;
                for (int b = 0; b < 8; b++) v = v << 8 | block[8 * t + b];
                w[t][n] = v;
            }
            lane[n++] = hd;
        }
        if (n == SHA_LANES || (k == count && n > 0)) {
            for (int l = n; l < SHA_LANES; l++) /* idle lanes hash the first text again */
                for (int t = 0; t < 16; t++) w[t][l] = w[t][0];
            sha_lanes(w, out);
            for (int l = 0; l < n; l++) {
                for (int i = 0; i < 8; i++)
                    for (int b = 0; b < 8; b++)
                        digest[8 * i + b] = (uint8_t)(out[i][l] >> (56 - 8 * b));
                text_head_key(lane[l], digest);
            }
            n = 0;
        }
    }
}
