/* search_binding.c -- the search methods of marjolet._kernel: dealing
 * worlds consistently with an observation (sample.c) and the best bot's
 * sampled-world search (search.c).
 *
 *   sample(deal, seat, unseen, opp_missing, first_slot, n, seed,
 *          weights=None, soft=()) -> [(opp_hidden_mask, stock), ...]
 *   pimc(deal, table, seat, unseen, opp_missing, first_slot, worlds, seed,
 *        exact_tricks=2, eval=0, weights=None, soft=(), noise=8, utility=None,
 *        paired=False) -> (worlds, actions, sums, sumsqs, usums)
 *
 * `deal` is a _kernel.Deal holding what the seat knows (the opponent's hand
 * reduced to its known cards, unknown stock cards -1); `unseen` the cards
 * whose place is unknown, `opp_missing` how many of them the opponent
 * holds, `first_slot` the first hidden stock position still to be drawn
 * (the rest of the unseen cards fill first_slot..18). `weights`: 32 odds
 * that a card sits in the opponent's hand; `soft`: (mask, accept) pairs,
 * see sample.h; `noise`: with eval=4 or 5 (noisy, tuned), one card play
 * in `noise` of the playouts is random (0 = none); `utility`: None or MJ_UTIL_SIZE^2 float64
 * (bytes), the value of a world's final deal points (search.h), whose sums
 * are `usums` (zeros without it); `paired`: every action's playouts in a
 * world draw the same random numbers. Bad arguments raise ValueError/TypeError. */
#include "binding.h"
#include <math.h>

#include "search.h"

/* The kernel's search limits: a call is meant to last a few milliseconds. */
#define MAX_WORLDS_PER_CALL 10000000L
/* noise=1 already makes every card play random */
#define MAX_NOISE_IN 1000

static int parse_weights(PyObject *obj, mj_sample_spec *spec) {
    spec->weighted = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(obj, "weights must be a sequence of 32 numbers or None");
    if (seq == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 32) {
        PyErr_Format(PyExc_ValueError, "weights must have 32 entries, got %zd",
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (int c = 0; c < 32; c++) {
        double w = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, c));
        if (w == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (!(w >= 0.0) || w > 1e12) {
            PyErr_Format(PyExc_ValueError, "weights[%d] must be a number in [0, 1e12]", c);
            Py_DECREF(seq);
            return -1;
        }
        spec->weight[c] = w;
    }
    Py_DECREF(seq);
    spec->weighted = 1;
    return 0;
}

/* utility: None, or a bytes-like of MJ_UTIL_SIZE^2 finite float64 (native
 * order), copied into out. Returns 1 if given, 0 if None, -1 on error. */
static int parse_utility(PyObject *obj, double *out) {
    if (obj == NULL || obj == Py_None)
        return 0;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return -1;
    Py_ssize_t want = (Py_ssize_t)(sizeof(double) * MJ_UTIL_SIZE * MJ_UTIL_SIZE);
    if (view.len != want) {
        PyErr_Format(PyExc_ValueError, "utility must hold %d x %d float64 (%zd bytes), got %zd",
                     MJ_UTIL_SIZE, MJ_UTIL_SIZE, want, view.len);
        PyBuffer_Release(&view);
        return -1;
    }
    memcpy(out, view.buf, (size_t)want);
    PyBuffer_Release(&view);
    for (int i = 0; i < MJ_UTIL_SIZE * MJ_UTIL_SIZE; i++)
        if (!isfinite(out[i]) || out[i] > 1e9 || out[i] < -1e9) {
            PyErr_Format(PyExc_ValueError, "utility[%d] must be a finite number in [-1e9, 1e9]", i);
            return -1;
        }
    return 1;
}

static int parse_soft(PyObject *obj, mj_sample_spec *spec) {
    spec->n_soft = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(obj, "soft must be a sequence of (mask, accept) pairs");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > MJ_MAX_SOFT) {
        PyErr_Format(PyExc_ValueError, "soft holds %zd constraints, at most %d", n, MJ_MAX_SOFT);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long mask;
        double accept;
        if (!PyTuple_Check(PySequence_Fast_GET_ITEM(seq, i))) {
            PyErr_Format(PyExc_TypeError, "soft[%zd] must be a (mask, accept) tuple", i);
            Py_DECREF(seq);
            return -1;
        }
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "Kd;soft entries are (mask, accept)",
                              &mask, &accept)) {
            Py_DECREF(seq);
            return -1;
        }
        if (mask > 0xFFFFFFFFull || !(accept >= 0.0 && accept <= 1.0)) {
            PyErr_Format(PyExc_ValueError,
                         "soft[%zd]: mask must be a 32-bit card set and accept in [0, 1]", i);
            Py_DECREF(seq);
            return -1;
        }
        spec->soft[i] = (uint32_t)mask;
        spec->accept[i] = accept;
    }
    spec->n_soft = (int)n;
    Py_DECREF(seq);
    return 0;
}

/* Every card the base deal places (hands, tricks, the lead, the indicator,
 * known stock cards): none of them may be unseen. */
static uint32_t placed_cards(const mk_deal *d) {
    uint32_t m = d->hand[0] | d->hand[1] | d->won[0] | d->won[1];
    if (d->lead >= 0)
        m |= 1u << d->lead;
    if (!mk_stock_empty(d))
        m |= 1u << d->indicator;
    for (int i = 0; i < MK_STOCK_CARDS; i++)
        if (d->stock[i] >= 0)
            m |= 1u << d->stock[i];
    return m;
}

/* Parse and check the shared arguments of sample() and pimc(). */
static int make_spec(const mk_deal *d, int seat, unsigned long long unseen, int opp_missing,
                     int first_slot, PyObject *weights, PyObject *soft, mj_sample_spec *spec) {
    if (seat != 0 && seat != 1) {
        PyErr_Format(PyExc_ValueError, "seat must be 0 or 1, got %d", seat);
        return -1;
    }
    if (unseen > 0xFFFFFFFFull) {
        PyErr_SetString(PyExc_ValueError, "unseen must be a 32-bit card set");
        return -1;
    }
    spec->unseen = (uint32_t)unseen;
    spec->opp_missing = opp_missing;
    spec->first_slot = first_slot;
    if (parse_weights(weights, spec) < 0 || parse_soft(soft, spec) < 0)
        return -1;
    if (first_slot < 0 || first_slot > MJ_STOCK || mj_sample_check(spec) != 0) {
        PyErr_Format(PyExc_ValueError,
                     "inconsistent observation: %d unseen cards for %d in the opponent's hand "
                     "and stock positions %d-18",
                     __builtin_popcount(spec->unseen), opp_missing, first_slot);
        return -1;
    }
    if (placed_cards(d) & spec->unseen) {
        PyErr_SetString(PyExc_ValueError,
                        "inconsistent observation: an unseen card is already placed in the deal");
        return -1;
    }
    for (int i = first_slot; i < MK_STOCK_CARDS; i++)
        if (d->stock[i] >= 0) {
            PyErr_Format(PyExc_ValueError,
                         "inconsistent observation: stock position %d to be dealt is known", i);
            return -1;
        }
    return 0;
}

static PyObject *py_sample(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"deal", "seat", "unseen", "opp_missing", "first_slot", "n", "seed",
                            "weights", "soft", NULL};
    PyObject *deal_obj, *weights = NULL, *soft = NULL;
    int seat, opp_missing, first_slot;
    unsigned long long unseen, seed;
    Py_ssize_t n;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiKiinK|OO", names, &deal_obj, &seat, &unseen,
                                     &opp_missing, &first_slot, &n, &seed, &weights, &soft))
        return NULL;
    KDealObject *kd = kd_check(deal_obj);
    if (kd == NULL)
        return NULL;
    mj_sample_spec spec;
    if (make_spec(&kd->d, seat, unseen, opp_missing, first_slot, weights, soft, &spec) < 0)
        return NULL;
    if (n < 0 || n > 1000000) {
        PyErr_Format(PyExc_ValueError, "n must be 0-1000000, got %zd", n);
        return NULL;
    }
    mk_rng g;
    mk_rng_seed(&g, seed);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        int8_t stock[MK_STOCK_CARDS];
        memcpy(stock, kd->d.stock, sizeof stock);
        uint32_t hidden = 0;
        mj_sample(&spec, &g, &hidden, stock);
        PyObject *st = PyTuple_New(MK_STOCK_CARDS);
        if (st == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        for (int i = 0; i < MK_STOCK_CARDS; i++)
            PyTuple_SET_ITEM(st, i, PyLong_FromLong(stock[i]));
        PyObject *item = Py_BuildValue("(kN)", (unsigned long)hidden, st);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, item);
    }
    return out;
}

static PyObject *float_tuple(const double *v, int n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, PyFloat_FromDouble(v[i]));
    return t;
}

static PyObject *py_pimc(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"deal",   "table",        "seat", "unseen",  "opp_missing",
                            "first_slot", "worlds",   "seed", "exact_tricks", "eval",
                            "weights", "soft",        "noise", "utility", "paired", NULL};
    PyObject *deal_obj, *table_obj, *weights = NULL, *soft = NULL, *util_obj = NULL;
    int seat, opp_missing, first_slot, exact_tricks = 2, eval = MJ_EVAL_SOLVE;
    int noise = MJ_NOISE_IN, paired = 0;
    unsigned long long unseen, seed;
    long worlds;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOiKiilK|iiOOiOp", names, &deal_obj,
                                     &table_obj, &seat, &unseen, &opp_missing, &first_slot,
                                     &worlds, &seed, &exact_tricks, &eval, &weights, &soft, &noise,
                                     &util_obj, &paired))
        return NULL;
    KDealObject *kd = kd_check(deal_obj);
    if (kd == NULL)
        return NULL;
    KTableObject *kt = kt_check(table_obj);
    if (kt == NULL)
        return NULL;
    mj_sample_spec spec;
    if (make_spec(&kd->d, seat, unseen, opp_missing, first_slot, weights, soft, &spec) < 0)
        return NULL;
    if (mk_over(&kd->d) || kd->d.turn != seat) {
        PyErr_Format(PyExc_ValueError, "pimc: seat %d is not the player to act", seat);
        return NULL;
    }
    if (worlds < 0 || worlds > MAX_WORLDS_PER_CALL) {
        PyErr_Format(PyExc_ValueError, "worlds must be 0-%ld, got %ld", MAX_WORLDS_PER_CALL,
                     worlds);
        return NULL;
    }
    if (exact_tricks < 0 || exact_tricks > MK_PHASE1_TRICKS) {
        PyErr_Format(PyExc_ValueError, "exact_tricks must be 0-10, got %d", exact_tricks);
        return NULL;
    }
    if (eval < MJ_EVAL_SOLVE || eval > MJ_EVAL_LAST) {
        PyErr_Format(PyExc_ValueError,
                     "eval must be 0 (solve), 1 (playout), 2 (random), 3 (fast), 4 (noisy) or 5 (tuned), got %d",
                     eval);
        return NULL;
    }
    if (noise < 0 || noise > MAX_NOISE_IN) {
        PyErr_Format(PyExc_ValueError, "noise must be 0-%d, got %d", MAX_NOISE_IN, noise);
        return NULL;
    }
    double util[MJ_UTIL_SIZE * MJ_UTIL_SIZE];
    int has_util = parse_utility(util_obj, util);
    if (has_util < 0)
        return NULL;
    mj_search_params p = {seat, exact_tricks, eval, noise, has_util ? util : NULL, paired};
    mj_search_acc acc;
    mj_acc_init(&acc, mk_legal(&kd->d));
    mk_deal base = kd->d;
    mk_rng g;
    mk_rng_seed(&g, seed);
    int rc;
    if (kt_acquire(kt) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mj_pimc(&base, &spec, &p, &g, &kt->t, worlds, &acc);
    Py_END_ALLOW_THREADS
    kt_release(kt);
    if (rc != 0) {
        PyErr_SetString(PyExc_ValueError, "pimc: the observation does not fit the deal");
        return NULL;
    }
    PyObject *actions = PyTuple_New(acc.n);
    if (actions == NULL)
        return NULL;
    for (int i = 0; i < acc.n; i++)
        PyTuple_SET_ITEM(actions, i, PyLong_FromLong(acc.actions[i]));
    return Py_BuildValue("(lNNNN)", acc.worlds, actions, float_tuple(acc.sum, acc.n),
                         float_tuple(acc.sumsq, acc.n), float_tuple(acc.usum, acc.n));
}

PyMethodDef kernel_search_methods[] = {
    {"sample", (PyCFunction)(void (*)(void))py_sample, METH_VARARGS | METH_KEYWORDS,
     "sample(deal, seat, unseen, opp_missing, first_slot, n, seed, weights=None, soft=()) -> "
     "[(opp_hidden_mask, stock), ...]: n worlds consistent with an observation"},
    {"pimc", (PyCFunction)(void (*)(void))py_pimc, METH_VARARGS | METH_KEYWORDS,
     "pimc(deal, table, seat, unseen, opp_missing, first_slot, worlds, seed, exact_tricks=2, "
     "eval=0, weights=None, soft=(), noise=8, utility=None, paired=False) -> (worlds, actions, "
     "sums, sumsqs, usums): the best bot's sampled-world search, every legal action scored in each world"},
    {NULL, NULL, 0, NULL} /* sentinel */
};
