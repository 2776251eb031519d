/* module.c -- the CPython binding of the kernel: types Deal and Table, the
 * core functions, and the module init that merges kernel_core_methods with
 * kernel_search_methods (search_binding.c).
 *
 * Every entry point checks its arguments: wrong types, out-of-range ids,
 * wrong lengths and illegal actions raise TypeError / ValueError, never
 * reach the trusted C functions. */
#include "binding.h"
#include "bench.h"

/* ---- argument helpers ---------------------------------------------------- */

static int long_in(PyObject *obj, long lo, long hi, const char *what, long *out) {
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s out of range", what);
        return -1;
    }
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be %ld..%ld, got %ld", what, lo, hi, v);
        return -1;
    }
    *out = v;
    return 0;
}

/* read a sequence of exactly n ints each in [lo, hi] into out[] */
static int ints_from(PyObject *seq, Py_ssize_t n, long lo, long hi, const char *what, long *out) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %zd items, got %zd", what, n, len);
        Py_DECREF(fast);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (long_in(items[i], lo, hi, what, &out[i]) < 0) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

int kd_rules_from(PyObject *obj, mk_rules *r) {
    long v[5];
    if (ints_from(obj, 5, 0, MK_MAX_BONUS,
                  "rules (pattern_222, all_tricks_bonus, dix_on_play, same_suit, one_meld)",
                  v) < 0)
        return -1;
    if (v[0] > 1 || v[2] > 1 || v[3] > 1 || v[4] > 1) {
        PyErr_SetString(PyExc_ValueError, "rules flags must be 0 or 1");
        return -1;
    }
    r->pattern_222 = (uint8_t)v[0];
    r->all_tricks_bonus = (int16_t)v[1];
    r->dix_on_play = (uint8_t)v[2];
    r->same_suit = (uint8_t)v[3];
    r->one_meld = (uint8_t)v[4];
    return 0;
}

KDealObject *kd_check(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, &KDeal_Type)) {
        PyErr_Format(PyExc_TypeError, "expected a marjolet._kernel.Deal, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return (KDealObject *)obj;
}

KTableObject *kt_check(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, &KTable_Type)) {
        PyErr_Format(PyExc_TypeError, "expected a marjolet._kernel.Table, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return (KTableObject *)obj;
}

int kt_acquire(KTableObject *t) {
    if (!t->t.entries) {
        PyErr_SetString(PyExc_ValueError, "the Table was not initialised");
        return -1;
    }
    if (t->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the Table is in use by a search in another thread: give each "
                        "thread its own Table");
        return -1;
    }
    t->busy = 1;
    return 0;
}

void kt_release(KTableObject *t) { t->busy = 0; }

PyObject *kd_new(const mk_deal *d) {
    KDealObject *o = PyObject_New(KDealObject, &KDeal_Type);
    if (!o) return NULL;
    o->d = *d;
    return (PyObject *)o;
}

static PyObject *mask_to_list(uint64_t m) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    while (m) {
        PyObject *v = PyLong_FromLong(__builtin_ctzll(m));
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
        m &= m - 1;
    }
    return out;
}

static uint64_t seed_from(PyObject *obj, int *err) {
    *err = 0;
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "seed must be an int");
        *err = 1;
        return 0;
    }
    uint64_t v = PyLong_AsUnsignedLongLongMask(obj);
    if (v == (uint64_t)-1 && PyErr_Occurred()) {
        *err = 1;
        return 0;
    }
    return v;
}

/* ---- Deal ----------------------------------------------------------------- */

/* every card known: both hands complete and the stock still to draw */
static int full_info(const mk_deal *d, const char *what) {
    if (!mk_sizes_ok(d)) {
        PyErr_Format(PyExc_ValueError, "%s needs both hands complete (hand sizes do not match "
                     "the trick count)", what);
        return 0;
    }
    if (!mk_stock_known(d)) {
        PyErr_Format(PyExc_ValueError, "%s needs every stock card still to draw known", what);
        return 0;
    }
    return 1;
}

static int kd_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"deck", "dealer", "rules", NULL};
    PyObject *deck_obj, *rules_obj = NULL;
    int dealer = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iO", names, &deck_obj, &dealer, &rules_obj))
        return -1;
    long v[32];
    if (ints_from(deck_obj, 32, 0, 31, "deck", v) < 0) return -1;
    if (dealer != 0 && dealer != 1) {
        PyErr_Format(PyExc_ValueError, "dealer must be 0 or 1, got %d", dealer);
        return -1;
    }
    mk_rules r;
    mk_rules_classic(&r);
    if (rules_obj && rules_obj != Py_None && kd_rules_from(rules_obj, &r) < 0) return -1;
    uint8_t deck[32];
    for (int i = 0; i < 32; i++) deck[i] = (uint8_t)v[i];
    if (mk_deal_init(&((KDealObject *)self)->d, deck, dealer, &r) < 0) {
        PyErr_SetString(PyExc_ValueError, "deck must hold each of the 32 cards once");
        return -1;
    }
    return 0;
}

static PyObject *kd_copy(PyObject *self, PyObject *unused) {
    (void)unused;
    return kd_new(&((KDealObject *)self)->d);
}

static PyObject *kd_legal_mask(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(mk_legal(&((KDealObject *)self)->d));
}

static PyObject *kd_legal_actions(PyObject *self, PyObject *unused) {
    (void)unused;
    return mask_to_list(mk_legal(&((KDealObject *)self)->d));
}

static PyObject *kd_is_legal(PyObject *self, PyObject *arg) {
    long a;
    if (long_in(arg, LONG_MIN, LONG_MAX, "action", &a) < 0) return NULL;
    return PyBool_FromLong(a >= 0 && a < MK_ACTION_COUNT &&
                           mk_is_legal(&((KDealObject *)self)->d, (int)a));
}

static PyObject *kd_play(PyObject *self, PyObject *arg) {
    long a;
    if (long_in(arg, 0, MK_ACTION_COUNT - 1, "action", &a) < 0) return NULL;
    mk_deal *d = &((KDealObject *)self)->d;
    if (!mk_is_legal(d, (int)a)) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal in this position", a);
        return NULL;
    }
    if (a == MK_DRAW && d->tricks <= MK_PHASE1_TRICKS) {
        int i = 2 * d->tricks - 2;
        if (d->stock[i] < 0 || (d->tricks < MK_PHASE1_TRICKS && d->stock[i + 1] < 0)) {
            PyErr_SetString(PyExc_ValueError, "draw of a stock card that is unknown (-1)");
            return NULL;
        }
    }
    mk_play(d, (int)a);
    Py_RETURN_NONE;
}

static PyObject *kd_state(PyObject *self, PyObject *unused) {
    (void)unused;
    const mk_deal *d = &((KDealObject *)self)->d;
    return Py_BuildValue("(kkkkkkiiiiiiiiiiiiiii)", (unsigned long)d->hand[0],
                         (unsigned long)d->hand[1], (unsigned long)d->exposed[0],
                         (unsigned long)d->exposed[1], (unsigned long)d->won[0],
                         (unsigned long)d->won[1], (int)d->melds[0], (int)d->melds[1],
                         (int)d->points[0], (int)d->points[1], (int)d->late[0], (int)d->late[1],
                         (int)d->tricks, (int)d->lead, (int)d->turn, (int)d->window,
                         (int)d->indicator, (int)d->seven_by, (int)d->last_card_to,
                         (int)d->last_winner, (int)d->window_melds);
}

static PyObject *kd_stock(PyObject *self, PyObject *unused) {
    (void)unused;
    const mk_deal *d = &((KDealObject *)self)->d;
    PyObject *t = PyTuple_New(MK_STOCK_CARDS);
    if (!t) return NULL;
    for (int i = 0; i < MK_STOCK_CARDS; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(d->stock[i]));
    return t;
}

static PyObject *kd_check_state(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLong(mk_deal_check(&((KDealObject *)self)->d));
}

/* The deal of a playout method, with `g` seeded from `seed_obj`; NULL with
   the exception set when the seed is bad or the deal hides cards. */
static mk_deal *playout_deal(PyObject *self, PyObject *seed_obj, mk_rng *g) {
    int err;
    uint64_t seed = seed_from(seed_obj, &err);
    if (err) return NULL;
    mk_deal *d = &((KDealObject *)self)->d;
    if (!full_info(d, "playout")) return NULL;
    mk_rng_seed(g, seed);
    return d;
}

/* The deal of a policy method (one action), with `g` seeded from `seed_obj`;
   tricks 11-16 need every card known. NULL with the exception set. */
static const mk_deal *policy_deal(PyObject *self, PyObject *seed_obj, mk_rng *g) {
    int err;
    uint64_t seed = seed_from(seed_obj, &err);
    if (err) return NULL;
    const mk_deal *d = &((KDealObject *)self)->d;
    if (mk_stock_empty(d) && !full_info(d, "the policy in tricks 11-16")) return NULL;
    mk_rng_seed(g, seed);
    return d;
}

/* the actions a playout played, or ValueError when it could not finish
 * (a state no deal reaches: the bound of MK_MAX_ACTIONS, or no action) */
static PyObject *playout_result(int n) {
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "inconsistent deal state: the playout found no way to finish the deal");
        return NULL;
    }
    return PyLong_FromLong(n);
}

static PyObject *kd_random_playout(PyObject *self, PyObject *arg) {
    mk_rng g;
    mk_deal *d = playout_deal(self, arg, &g);
    if (d == NULL) return NULL;
    return playout_result(mk_random_playout(d, &g));
}

typedef int (*playout_fn)(mk_deal *, mk_rng *, int);
typedef int (*policy_fn)(const mk_deal *, mk_rng *);

/* play(seed, stop_at_ending=False) of one policy: the actions played */
static PyObject *policy_playout(PyObject *self, PyObject *args, PyObject *kw, playout_fn play) {
    static char *names[] = {"seed", "stop_at_ending", NULL};
    PyObject *seed_obj;
    int stop = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", names, &seed_obj, &stop)) return NULL;
    mk_rng g;
    mk_deal *d = playout_deal(self, seed_obj, &g);
    if (d == NULL) return NULL;
    return playout_result(play(d, &g, stop));
}

/* action(seed) of one policy: the action it chooses */
static PyObject *policy_action(PyObject *self, PyObject *arg, policy_fn act) {
    mk_rng g;
    const mk_deal *d = policy_deal(self, arg, &g);
    if (d == NULL) return NULL;
    return PyLong_FromLong(act(d, &g));
}

static PyObject *kd_heuristic_playout(PyObject *self, PyObject *args, PyObject *kw) {
    return policy_playout(self, args, kw, mk_heuristic_playout);
}

static PyObject *kd_heuristic_action(PyObject *self, PyObject *arg) {
    return policy_action(self, arg, mk_heuristic_action);
}

static PyObject *kd_tuned_action(PyObject *self, PyObject *arg) {
    return policy_action(self, arg, mk_tuned_action);
}

/* policy_record(): None outside tricks 1-10, else (the heuristic's card,
 * ((card, heuristic value, (feature index, ...)), ...)) for the mover */
static PyObject *kd_policy_record(PyObject *self, PyObject *noargs) {
    (void)noargs;
    mk_pfrecord rec;
    int choice = mk_policy_record(&((KDealObject *)self)->d, &rec);
    if (choice < 0) Py_RETURN_NONE;
    PyObject *cards = PyTuple_New(rec.n);
    if (cards == NULL) return NULL;
    for (int i = 0; i < rec.n; i++) {
        const mk_pfcard *k = &rec.cards[i];
        PyObject *idx = PyTuple_New(k->n);
        if (idx == NULL) {
            Py_DECREF(cards);
            return NULL;
        }
        for (int j = 0; j < k->n; j++) {
            PyObject *index = PyLong_FromLong(k->idx[j]);
            if (index == NULL) {
                Py_DECREF(idx);
                Py_DECREF(cards);
                return NULL;
            }
            PyTuple_SET_ITEM(idx, j, index);
        }
        PyObject *item = Py_BuildValue("(idN)", k->card, k->value, idx);
        if (item == NULL) {
            Py_DECREF(cards);
            return NULL;
        }
        PyTuple_SET_ITEM(cards, i, item);
    }
    return Py_BuildValue("(iN)", choice, cards);
}

static PyObject *kd_fast_playout(PyObject *self, PyObject *args, PyObject *kw) {
    return policy_playout(self, args, kw, mk_fast_playout);
}

static PyObject *kd_fast_action(PyObject *self, PyObject *arg) {
    return policy_action(self, arg, mk_fast_action);
}

/* The table argument of a search, held for the time of the search (the
 * GIL is released while it runs): a Table, or None for a fresh temporary
 * one. lease_table returns 0, or -1 with an exception set; every
 * successful lease is ended by end_lease. */
typedef struct {
    mk_tt tmp;
    mk_tt *t;
    KTableObject *held;
} table_lease;

static int lease_table(PyObject *obj, table_lease *l) {
    l->held = NULL;
    if (obj == NULL || obj == Py_None) {
        if (mk_tt_init(&l->tmp, 16) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        l->t = &l->tmp;
        return 0;
    }
    KTableObject *t = kt_check(obj);
    if (!t || kt_acquire(t) < 0) return -1;
    l->held = t;
    l->t = &t->t;
    return 0;
}

/* The node budget of an exact search (v1.7): set before it runs; after it,
 * 0 when it finished, else -1 with RuntimeError set and the table cleared
 * (entries stored after the search gave up would be wrong). */
static void set_budget(table_lease *l, uint64_t max_nodes) {
    l->t->node_limit = max_nodes ? l->t->nodes + max_nodes : 0;
}

static int check_budget(table_lease *l, uint64_t max_nodes) {
    int over = mk_tt_over_budget(l->t);
    l->t->node_limit = 0;
    if (!over) return 0;
    mk_tt_clear(l->t);
    PyErr_Format(PyExc_RuntimeError,
                 "exact search gave up after %llu positions (max_nodes): search from later "
                 "in the deal (the last 2-4 tricks of phase 1) or raise max_nodes",
                 (unsigned long long)max_nodes);
    return -1;
}

static void end_lease(table_lease *l) {
    if (l->held)
        kt_release(l->held);
    else
        mk_tt_free(&l->tmp);
}

/* {action: value} for each action of `actions` (a legal set of d), scored
 * by `value` with the GIL released */
static PyObject *action_values(const mk_deal *d, PyObject *tobj, uint64_t actions,
                               int (*value)(const mk_deal *, mk_tt *, int), uint64_t max_nodes) {
    mk_deal copy = *d;
    int ids[MK_ACTION_COUNT], values[MK_ACTION_COUNT], n = 0;
    for (uint64_t m = actions; m; m &= m - 1) ids[n++] = __builtin_ctzll(m);
    table_lease l;
    if (lease_table(tobj, &l) < 0) return NULL;
    set_budget(&l, max_nodes);
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < n && !mk_tt_over_budget(l.t); i++) values[i] = value(&copy, l.t, ids[i]);
    Py_END_ALLOW_THREADS
    int over = check_budget(&l, max_nodes);
    end_lease(&l);
    if (over < 0) return NULL;
    PyObject *out = PyDict_New();
    for (int i = 0; out && i < n; i++) {
        PyObject *k = PyLong_FromLong(ids[i]), *v = PyLong_FromLong(values[i]);
        if (!k || !v || PyDict_SetItem(out, k, v) < 0) Py_CLEAR(out);
        Py_XDECREF(k);
        Py_XDECREF(v);
    }
    return out;
}

static int ending_ok(const mk_deal *d) {
    if (d->turn < 0) {
        PyErr_SetString(PyExc_ValueError, "the deal is over: there is nothing to solve");
        return 0;
    }
    if (!mk_stock_empty(d)) {
        PyErr_SetString(PyExc_ValueError, "the stock is not empty: the solver plays tricks 11-16");
        return 0;
    }
    return full_info(d, "the ending solver");
}

static int exact_ok(const mk_deal *d) {
    if (d->turn < 0) {
        PyErr_SetString(PyExc_ValueError, "the deal is over: there is nothing to search");
        return 0;
    }
    return full_info(d, "exact search");
}

enum search_kind { SOLVE_ENDING, ENDING_VALUE, EXACT };

/* The positions an exact search may visit when the caller sets no budget
 * (max_nodes=None): a few seconds at most. A search of the last 2-4
 * phase-1 tricks needs far fewer; one from trick 1 would run for hours. */
#define EXACT_MAX_NODES_DEFAULT 5000000ull

/* The (table=None, max_nodes=None) arguments of the exact searches; the
 * ending ones take the table only (an ending is at most six tricks). */
static int search_args(PyObject *args, PyObject *kw, int exact, PyObject **tobj,
                       uint64_t *max_nodes) {
    static char *names[] = {"table", "max_nodes", NULL};
    static char *ending_names[] = {"table", NULL};
    PyObject *limit = NULL;
    *tobj = NULL;
    *max_nodes = 0;
    if (!exact) return PyArg_ParseTupleAndKeywords(args, kw, "|O", ending_names, tobj) ? 0 : -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", names, tobj, &limit)) return -1;
    *max_nodes = EXACT_MAX_NODES_DEFAULT;
    if (limit == NULL || limit == Py_None) return 0;
    if (!PyLong_Check(limit)) {
        PyErr_SetString(PyExc_TypeError, "max_nodes must be an int or None");
        return -1;
    }
    long long v = PyLong_AsLongLong(limit);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 1) {
        PyErr_SetString(PyExc_ValueError, "max_nodes must be at least 1");
        return -1;
    }
    *max_nodes = (uint64_t)v;
    return 0;
}

/* One search of self's deal (checked by ok; the table argument is
 * optional, and max_nodes for the exact search), on a copy and with the
 * GIL released: 0 with *value and *best (the optimal set) filled, or -1
 * with an exception set. */
static int run_search(PyObject *self, PyObject *args, PyObject *kw, int (*ok)(const mk_deal *),
                      enum search_kind kind, int *value, uint64_t *best) {
    PyObject *tobj;
    uint64_t max_nodes;
    if (search_args(args, kw, kind == EXACT, &tobj, &max_nodes) < 0) return -1;
    const mk_deal *d = &((KDealObject *)self)->d;
    if (!ok(d)) return -1;
    mk_deal copy = *d;
    table_lease l;
    if (lease_table(tobj, &l) < 0) return -1;
    uint32_t cards = 0;
    *best = 0;
    set_budget(&l, max_nodes);
    Py_BEGIN_ALLOW_THREADS
    if (kind == SOLVE_ENDING) {
        *value = mk_solve_ending(&copy, l.t, &cards);
        *best = cards;
    } else if (kind == ENDING_VALUE) {
        *value = mk_ending_value(&copy, l.t, -MK_INF, MK_INF);
    } else {
        *value = mk_search_exact(&copy, l.t, best);
    }
    Py_END_ALLOW_THREADS
    int over = check_budget(&l, max_nodes);
    end_lease(&l);
    return over;
}

/* {action: value} of every legal action of self's deal (checked by ok) */
static PyObject *values_of(PyObject *self, PyObject *args, PyObject *kw,
                           int (*ok)(const mk_deal *), int ending) {
    PyObject *tobj;
    uint64_t max_nodes;
    if (search_args(args, kw, !ending, &tobj, &max_nodes) < 0) return NULL;
    const mk_deal *d = &((KDealObject *)self)->d;
    if (!ok(d)) return NULL;
    if (ending) return action_values(d, tobj, mk_legal_cards(d), mk_ending_action_value, 0);
    return action_values(d, tobj, mk_legal(d), mk_exact_action_value, max_nodes);
}

static PyObject *kd_solve(PyObject *self, PyObject *args, PyObject *kw) {
    int v;
    uint64_t best;
    if (run_search(self, args, kw, ending_ok, SOLVE_ENDING, &v, &best) < 0) return NULL;
    return Py_BuildValue("(ik)", v, (unsigned long)best);
}

static PyObject *kd_ending_value(PyObject *self, PyObject *args, PyObject *kw) {
    int v;
    uint64_t best;
    if (run_search(self, args, kw, ending_ok, ENDING_VALUE, &v, &best) < 0) return NULL;
    return PyLong_FromLong(v);
}

static PyObject *kd_ending_action_values(PyObject *self, PyObject *args, PyObject *kw) {
    return values_of(self, args, kw, ending_ok, 1);
}

static PyObject *kd_exact(PyObject *self, PyObject *args, PyObject *kw) {
    int v;
    uint64_t best;
    if (run_search(self, args, kw, exact_ok, EXACT, &v, &best) < 0) return NULL;
    return Py_BuildValue("(iK)", v, (unsigned long long)best);
}

static PyObject *kd_exact_action_values(PyObject *self, PyObject *args, PyObject *kw) {
    return values_of(self, args, kw, exact_ok, 0);
}

static PyObject *kd_get_to_move(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(((KDealObject *)self)->d.turn);
}
static PyObject *kd_get_is_over(PyObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(mk_over(&((KDealObject *)self)->d));
}
static PyObject *kd_get_stock_empty(PyObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(mk_stock_empty(&((KDealObject *)self)->d));
}
static PyObject *kd_get_points(PyObject *self, void *c) {
    (void)c;
    const mk_deal *d = &((KDealObject *)self)->d;
    return Py_BuildValue("(ii)", d->points[0], d->points[1]);
}
static PyObject *kd_get_trump(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(((KDealObject *)self)->d.trump);
}
static PyObject *kd_get_dealer(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(((KDealObject *)self)->d.dealer);
}

static PyMethodDef kd_methods[] = {
    {"copy", kd_copy, METH_NOARGS, "an independent copy"},
    {"legal_mask", kd_legal_mask, METH_NOARGS, "legal actions as a bit mask (bit a: action a)"},
    {"legal_actions", kd_legal_actions, METH_NOARGS, "legal action ids, increasing"},
    {"is_legal", kd_is_legal, METH_O, "whether an action id is legal"},
    {"play", kd_play, METH_O, "apply an action after checking it (ValueError if illegal)"},
    {"push", kd_play, METH_O, "the same as play (checked)"},
    {"state", kd_state, METH_NOARGS, "the 21 state fields in engine.py's order"},
    {"stock", kd_stock, METH_NOARGS, "the 19 hidden stock cards (-1 unknown)"},
    {"check", kd_check_state, METH_NOARGS, "internal consistency code (0: consistent)"},
    {"random_playout", kd_random_playout, METH_O, "random legal actions to the end (seed)"},
    {"heuristic_playout", (PyCFunction)(void (*)(void))kd_heuristic_playout,
     METH_VARARGS | METH_KEYWORDS, "heuristic actions to the end, or to the ending"},
    {"heuristic_action", kd_heuristic_action, METH_O, "the heuristic policy's action (seed)"},
    {"tuned_action", kd_tuned_action, METH_O, "the tuned policy's action (seed)"},
    {"policy_record", kd_policy_record, METH_NOARGS,
     "tricks 1-10: (heuristic card, ((card, value, features), ...)) for fitting the tuned policy"},
    {"fast_playout", (PyCFunction)(void (*)(void))kd_fast_playout, METH_VARARGS | METH_KEYWORDS,
     "fast-policy actions to the end, or to the ending"},
    {"fast_action", kd_fast_action, METH_O, "the fast policy's action (seed)"},
    {"solve", (PyCFunction)(void (*)(void))kd_solve, METH_VARARGS | METH_KEYWORDS,
     "ending: (value, mask of optimal cards) [table]"},
    {"ending_value", (PyCFunction)(void (*)(void))kd_ending_value, METH_VARARGS | METH_KEYWORDS,
     "ending: exact value [table]"},
    {"ending_action_values", (PyCFunction)(void (*)(void))kd_ending_action_values,
     METH_VARARGS | METH_KEYWORDS, "ending: {card: exact value} [table]"},
    {"exact", (PyCFunction)(void (*)(void))kd_exact, METH_VARARGS | METH_KEYWORDS,
     "exact search: (value, mask of optimal actions) [table, max_nodes]; RuntimeError once "
     "max_nodes positions are searched (None: 5 million)"},
    {"exact_action_values", (PyCFunction)(void (*)(void))kd_exact_action_values,
     METH_VARARGS | METH_KEYWORDS,
     "exact search: {action: exact value} [table, max_nodes], budget as exact()"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kd_getset[] = {
    {"to_move", kd_get_to_move, NULL, "player to act, -1 when over", NULL},
    {"is_over", kd_get_is_over, NULL, "whether the deal is over", NULL},
    {"stock_empty", kd_get_stock_empty, NULL, "whether in phase 2", NULL},
    {"points", kd_get_points, NULL, "deal points (p0, p1)", NULL},
    {"trump", kd_get_trump, NULL, "trump suit", NULL},
    {"dealer", kd_get_dealer, NULL, "dealer", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject KDeal_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "marjolet._kernel.Deal",
    .tp_basicsize = sizeof(KDealObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Deal(deck, dealer=0, rules=None): one deal in the C kernel",
    .tp_methods = kd_methods,
    .tp_getset = kd_getset,
    .tp_init = kd_init,
    .tp_new = PyType_GenericNew,
};

/* deal_from_state(rules, dealer, turned_up, stock, state) */
static PyObject *k_deal_from_state(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *rules_obj, *stock_obj, *state_obj;
    int dealer, turned_up;
    if (!PyArg_ParseTuple(args, "OiiOO", &rules_obj, &dealer, &turned_up, &stock_obj, &state_obj))
        return NULL;
    mk_deal d = {0};
    if (kd_rules_from(rules_obj, &d.rules) < 0) return NULL;
    if (dealer != 0 && dealer != 1) {
        PyErr_Format(PyExc_ValueError, "dealer must be 0 or 1, got %d", dealer);
        return NULL;
    }
    if (turned_up < 0 || turned_up > 31) {
        PyErr_Format(PyExc_ValueError, "turned_up must be a card 0-31, got %d", turned_up);
        return NULL;
    }
    long st[MK_STOCK_CARDS], s[21];
    if (ints_from(stock_obj, MK_STOCK_CARDS, -1, 31, "stock", st) < 0) return NULL;
    if (ints_from(state_obj, 21, -1, 0xFFFFFFFFL, "state", s) < 0) return NULL;
    static const long hi[21] = {0xFFFFFFFFL, 0xFFFFFFFFL, 0xFFFFFFFFL, 0xFFFFFFFFL, 0xFFFFFFFFL,
                                0xFFFFFFFFL, 0xFFF, 0xFFF, 9999, 9999, 6, 6, 16, 31, 1, 1,
                                31, 1, 1, 1, 255};
    static const long lo[21] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0,
                                0, -1, -1, -1, 0};
    for (int i = 0; i < 21; i++) {
        if (s[i] < lo[i] || s[i] > hi[i]) {
            PyErr_Format(PyExc_ValueError, "state field %d out of range: %ld", i, s[i]);
            return NULL;
        }
    }
    d.dealer = (uint8_t)dealer;
    d.turned_up = (uint8_t)turned_up;
    d.trump = (uint8_t)(turned_up >> 3);
    d.seven = (uint8_t)(d.trump * 8);
    for (int i = 0; i < MK_STOCK_CARDS; i++) d.stock[i] = (int8_t)st[i];
    for (int p = 0; p < 2; p++) {
        d.hand[p] = (uint32_t)s[0 + p];
        d.exposed[p] = (uint32_t)s[2 + p];
        d.won[p] = (uint32_t)s[4 + p];
        d.melds[p] = (uint16_t)s[6 + p];
        d.points[p] = (int16_t)s[8 + p];
        d.late[p] = (uint8_t)s[10 + p];
    }
    d.tricks = (uint8_t)s[12];
    d.lead = (int8_t)s[13];
    d.turn = (int8_t)s[14];
    d.window = (uint8_t)s[15];
    d.indicator = (uint8_t)s[16];
    d.seven_by = (int8_t)s[17];
    d.last_card_to = (int8_t)s[18];
    d.last_winner = (int8_t)s[19];
    d.window_melds = (uint8_t)s[20];
    const char *problem = mk_state_problem(&d);
    if (problem) {
        PyErr_Format(PyExc_ValueError, "inconsistent deal state: %s", problem);
        return NULL;
    }
    return kd_new(&d);
}

/* ---- Table ---------------------------------------------------------------- */

static int kt_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"log2_entries", NULL};
    int log2 = MK_TT_DEFAULT_LOG2;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", names, &log2)) return -1;
    if (log2 < MK_TT_MIN_LOG2 || log2 > MK_TT_MAX_LOG2) {
        PyErr_Format(PyExc_ValueError, "log2_entries must be %d..%d, got %d", MK_TT_MIN_LOG2,
                     MK_TT_MAX_LOG2, log2);
        return -1;
    }
    KTableObject *t = (KTableObject *)self;
    if (t->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Table is in use by a search");
        return -1;
    }
    mk_tt_free(&t->t);
    if (mk_tt_init(&t->t, (unsigned)log2) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void kt_dealloc(PyObject *self) {
    mk_tt_free(&((KTableObject *)self)->t);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *kt_clear(PyObject *self, PyObject *unused) {
    (void)unused;
    KTableObject *t = (KTableObject *)self;
    if (t->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Table is in use by a search");
        return NULL;
    }
    mk_tt_clear(&t->t);
    Py_RETURN_NONE;
}

static PyObject *kt_get_nodes(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromUnsignedLongLong(((KTableObject *)self)->t.nodes);
}
static int kt_set_nodes(PyObject *self, PyObject *v, void *c) {
    (void)c;
    if (!v || !PyLong_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "nodes must be an int");
        return -1;
    }
    unsigned long long n = PyLong_AsUnsignedLongLong(v);
    if (n == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    ((KTableObject *)self)->t.nodes = n;
    return 0;
}
static PyObject *kt_get_size(PyObject *self, void *c) {
    (void)c;
    const mk_tt *t = &((KTableObject *)self)->t;
    return PyLong_FromUnsignedLongLong(t->entries ? t->mask + 1 : 0);
}

static PyMethodDef kt_methods[] = {
    {"clear", kt_clear, METH_NOARGS, "forget every entry"},
    {NULL, NULL, 0, NULL},
};
static PyGetSetDef kt_getset[] = {
    {"nodes", kt_get_nodes, kt_set_nodes, "positions searched with this table", NULL},
    {"size", kt_get_size, NULL, "number of entries", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject KTable_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "marjolet._kernel.Table",
    .tp_basicsize = sizeof(KTableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Table(log2_entries=18): a transposition table for the exact searches",
    .tp_methods = kt_methods,
    .tp_getset = kt_getset,
    .tp_init = kt_init,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = kt_dealloc,
};

/* ---- module functions ----------------------------------------------------- */

/* bench_random(rules, deals, seed) -> (actions, seconds) */
static PyObject *k_bench_random(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *rules_obj, *seed_obj;
    int deals;
    if (!PyArg_ParseTuple(args, "OiO", &rules_obj, &deals, &seed_obj)) return NULL;
    mk_rules r;
    if (kd_rules_from(rules_obj, &r) < 0) return NULL;
    if (deals < 1 || deals > 100000000) {
        PyErr_SetString(PyExc_ValueError, "deals must be 1..1e8");
        return NULL;
    }
    int err;
    uint64_t seed = seed_from(seed_obj, &err);
    if (err) return NULL;
    long long actions = 0;
    double secs;
    Py_BEGIN_ALLOW_THREADS
    secs = mk_bench_random(&r, deals, seed, &actions);
    Py_END_ALLOW_THREADS
    if (secs < 0) return PyErr_NoMemory();
    return Py_BuildValue("(Ld)", actions, secs);
}

/* bench_solve(rules, count, seed) -> list of seconds per solve */
static PyObject *k_bench_solve(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *rules_obj, *seed_obj;
    int count;
    if (!PyArg_ParseTuple(args, "OiO", &rules_obj, &count, &seed_obj)) return NULL;
    mk_rules r;
    if (kd_rules_from(rules_obj, &r) < 0) return NULL;
    if (count < 1 || count > 10000000) {
        PyErr_SetString(PyExc_ValueError, "count must be 1..1e7");
        return NULL;
    }
    int err;
    uint64_t seed = seed_from(seed_obj, &err);
    if (err) return NULL;
    double *times = PyMem_Malloc(sizeof(double) * (size_t)count);
    if (!times) return PyErr_NoMemory();
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mk_bench_solve(&r, count, seed, times);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyMem_Free(times);
        return PyErr_NoMemory();
    }
    PyObject *out = PyList_New(count);
    for (int i = 0; out && i < count; i++) {
        PyObject *v = PyFloat_FromDouble(times[i]);
        if (!v) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, v);
    }
    PyMem_Free(times);
    return out;
}

/* ---- the trick rules, for the agreement tests (tests/test_kernel_twins.py) */

/* a card id 0-31 from a Python int, or -1 with ValueError naming `what` */
static int card_arg(int value, const char *what) {
    if (value < 0 || value > 31) {
        PyErr_Format(PyExc_ValueError, "%s must be a card 0-31, got %d", what, value);
        return -1;
    }
    return value;
}

/* beats(lead, answer, trump) -> bool: mk_beats (R8) */
static PyObject *k_beats(PyObject *mod, PyObject *args) {
    (void)mod;
    int lead, answer, trump;
    if (!PyArg_ParseTuple(args, "iii", &lead, &answer, &trump)) return NULL;
    if (card_arg(lead, "lead") < 0 || card_arg(answer, "answer") < 0) return NULL;
    if (trump < 0 || trump > 3) {
        PyErr_Format(PyExc_ValueError, "trump must be a suit 0-3, got %d", trump);
        return NULL;
    }
    return PyBool_FromLong(mk_beats(lead, answer, trump));
}

/* follow_mask(lead, hand, trump) -> int: mk_follow_mask (R16) */
static PyObject *k_follow_mask(PyObject *mod, PyObject *args) {
    (void)mod;
    int lead, trump;
    unsigned long long hand;
    if (!PyArg_ParseTuple(args, "iKi", &lead, &hand, &trump)) return NULL;
    if (card_arg(lead, "lead") < 0) return NULL;
    if (hand > 0xFFFFFFFFull || trump < 0 || trump > 3) {
        PyErr_SetString(PyExc_ValueError, "hand must be a 32-bit card mask and trump a suit 0-3");
        return NULL;
    }
    return PyLong_FromUnsignedLong(mk_follow_mask(lead, (uint32_t)hand, trump));
}

PyMethodDef kernel_core_methods[] = {
    {"beats", k_beats, METH_VARARGS,
     "beats(lead, answer, trump) -> bool: whether answer wins the trick (R8)"},
    {"follow_mask", k_follow_mask, METH_VARARGS,
     "follow_mask(lead, hand, trump) -> int: the cards of hand that may answer lead (R16)"},
    {"deal_from_state", k_deal_from_state, METH_VARARGS,
     "deal_from_state(rules, dealer, turned_up, stock, state) -> Deal"},
    {"bench_random", k_bench_random, METH_VARARGS,
     "bench_random(rules, deals, seed) -> (actions, seconds): random legal play in C"},
    {"bench_solve", k_bench_solve, METH_VARARGS,
     "bench_solve(rules, count, seed) -> [seconds]: six-card endings, table cleared each"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "marjolet._kernel",
    "The C kernel of marjolet: deal state, playouts, exact searches.", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    if (PyType_Ready(&KDeal_Type) < 0 || PyType_Ready(&KTable_Type) < 0) return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    if (PyModule_AddFunctions(m, kernel_core_methods) < 0 ||
        PyModule_AddFunctions(m, kernel_search_methods) < 0 || kernel_add_vecenv(m) < 0 ||
        PyModule_AddIntConstant(m, "API_VERSION", MK_API_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "INF", MK_INF) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&KDeal_Type);
    if (PyModule_AddObject(m, "Deal", (PyObject *)&KDeal_Type) < 0) {
        Py_DECREF(&KDeal_Type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&KTable_Type);
    if (PyModule_AddObject(m, "Table", (PyObject *)&KTable_Type) < 0) {
        Py_DECREF(&KTable_Type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
