/* vecenv_binding.c -- the Python type _kernel.VecEnv over vecenv.c.
 *
 *   VecEnv(num_envs, rules, target, reward, opponent, seat, autoreset,
 *          illegal_raise, worst, buffers)
 *
 * `buffers` is a tuple of 12 writable C-contiguous buffers (numpy arrays
 * in marjolet.rl.vector; any exporter of the buffer protocol works, so the
 * kernel builds without numpy's headers), held for the object's lifetime:
 *   actions int64[n], obs float32[n*335], mask int8[n*46],
 *   reward float64[n*w] (w = 2 in two-seat mode, else 1), terminated
 *   bool[n], seat int8[n], final_obs float32[n*335], final_seat int8[n],
 *   deal_points int32[2n], totals int32[2n], winner int8[n], illegal bool[n].
 * Methods: seed(i, key_bytes), reset(i), step() -> the first refused slot
 * (nothing moved), else -1 - the number of episodes that ended, slot(i) -> (dealer, turned_up, stock, state). The
 * GIL is released while a step runs; one VecEnv serves one thread at a time. */
#include <string.h>
#include "binding.h"
#include "vecenv.h"

#define N_BUFFERS 12
#define MAX_ENVS (1 << 20)

typedef struct {
    PyObject_HEAD
    mk_venv_config cfg;
    mk_slot *slots;
    mk_venv_work *work;
    int n;
    int busy;
    int n_views;
    Py_buffer views[N_BUFFERS];
    mk_venv_out out;
} KVecEnvObject;

/* one buffer's expected element: format letters accepted, size, count a slot */
typedef struct {
    const char *name, *formats;
    Py_ssize_t itemsize, per_slot;
} buf_spec;

static const buf_spec SPECS[N_BUFFERS] = {
    {"actions", "lq", 8, 1},       {"obs", "f", 4, MK_OBS_SIZE},
    {"mask", "b", 1, MK_ACTION_COUNT}, {"reward", "d", 8, 1},
    {"terminated", "?B", 1, 1},    {"seat", "b", 1, 1},
    {"final_obs", "f", 4, MK_OBS_SIZE}, {"final_seat", "b", 1, 1},
    {"deal_points", "i", 4, 2},    {"totals", "i", 4, 2},
    {"winner", "b", 1, 1},         {"illegal", "?B", 1, 1},
};

static void release_views(KVecEnvObject *v) {
    for (int i = 0; i < v->n_views; i++) PyBuffer_Release(&v->views[i]);
    v->n_views = 0;
}

static int take_views(KVecEnvObject *v, PyObject *tuple, int width) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != N_BUFFERS) {
        PyErr_Format(PyExc_TypeError, "buffers must be a tuple of %d buffers", N_BUFFERS);
        return -1;
    }
    for (int i = 0; i < N_BUFFERS; i++) {
        Py_buffer *b = &v->views[i];
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(tuple, i), b,
                               PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return -1;
        v->n_views = i + 1;
        const buf_spec *s = &SPECS[i];
        const char *f = b->format ? b->format : "B";
        if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
        Py_ssize_t want = s->per_slot * (i == 3 ? width : 1) * v->n;
        if (b->itemsize != s->itemsize || strlen(f) != 1 || !strchr(s->formats, f[0]) ||
            b->len != want * s->itemsize) {
            PyErr_Format(PyExc_ValueError,
                         "buffer %s must hold %zd items of format '%s' (size %zd), got "
                         "format '%s', %zd bytes",
                         s->name, want, s->formats, s->itemsize, f, b->len);
            return -1;
        }
    }
    mk_venv_out *o = &v->out;
    o->actions = v->views[0].buf;
    o->obs = v->views[1].buf;
    o->mask = v->views[2].buf;
    o->reward = v->views[3].buf;
    o->terminated = v->views[4].buf;
    o->seat = v->views[5].buf;
    o->final_obs = v->views[6].buf;
    o->final_seat = v->views[7].buf;
    o->deal_points = v->views[8].buf;
    o->totals = v->views[9].buf;
    o->winner = v->views[10].buf;
    o->illegal = v->views[11].buf;
    return 0;
}

static int in_range(int v, int lo, int hi, const char *what) {
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be %d..%d, got %d", what, lo, hi, v);
        return 0;
    }
    return 1;
}

static int kv_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"num_envs", "rules", "target", "reward", "opponent", "seat",
                            "autoreset", "illegal_raise", "worst", "buffers", NULL};
    KVecEnvObject *v = (KVecEnvObject *)self;
    int n, target, reward, opponent, seat, autoreset, raise_;
    double worst;
    PyObject *rules_obj, *buffers;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iOiiiiipdO", names, &n, &rules_obj, &target,
                                     &reward, &opponent, &seat, &autoreset, &raise_, &worst,
                                     &buffers))
        return -1;
    if (v->slots || v->n_views) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv is already initialised");
        return -1;
    }
    if (!in_range(n, 1, MAX_ENVS, "num_envs") || !in_range(target, 1, 1000000000, "target") ||
        !in_range(reward, 0, 2, "reward") || !in_range(opponent, 0, 2, "opponent") ||
        !in_range(seat, -1, 1, "seat") || !in_range(autoreset, 0, 2, "autoreset"))
        return -1;
    mk_venv_config *c = &v->cfg;
    if (kd_rules_from(rules_obj, &c->rules) < 0) return -1;
    c->target = target;
    c->reward = reward;
    c->opponent = opponent;
    c->fixed_seat = seat;
    c->autoreset = autoreset;
    c->illegal_raise = raise_;
    c->worst = worst;
    v->n = n;
    if (take_views(v, buffers, opponent == MK_OPP_NONE ? 2 : 1) < 0) {
        release_views(v);
        return -1;
    }
    v->slots = PyMem_Calloc((size_t)n, sizeof(mk_slot));
    v->work = PyMem_Calloc(1, sizeof(mk_venv_work));
    if (!v->slots || !v->work) {
        PyMem_Free(v->slots);
        PyMem_Free(v->work);
        v->slots = NULL;
        v->work = NULL;
        release_views(v);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < n; i++) v->slots[i].done = 1; /* not started: reset first */
    return 0;
}

static void kv_dealloc(PyObject *self) {
    KVecEnvObject *v = (KVecEnvObject *)self;
    release_views(v);
    PyMem_Free(v->slots);
    PyMem_Free(v->work);
    Py_TYPE(self)->tp_free(self);
}

/* the slot argument i, checked; -1 with an exception */
static int slot_arg(KVecEnvObject *v, PyObject *obj) {
    if (!v->slots) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv was not initialised");
        return -1;
    }
    long i = PyLong_AsLong(obj);
    if (i == -1 && PyErr_Occurred()) return -1;
    if (i < 0 || i >= v->n) {
        PyErr_Format(PyExc_IndexError, "slot %ld out of range 0..%d", i, v->n - 1);
        return -1;
    }
    if (v->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the VecEnv is stepping in another thread");
        return -1;
    }
    return (int)i;
}

static PyObject *kv_seed(PyObject *self, PyObject *args) {
    KVecEnvObject *v = (KVecEnvObject *)self;
    PyObject *iobj;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "Oy*", &iobj, &key)) return NULL;
    int i = slot_arg(v, iobj);
    if (i < 0 || key.len < 4 || key.len % 4 || key.len > 4096) {
        if (i >= 0) PyErr_SetString(PyExc_ValueError, "key must be 4..4096 bytes, 4 a word");
        PyBuffer_Release(&key);
        return NULL;
    }
    size_t words = (size_t)key.len / 4;
    uint32_t w[1024];
    const uint8_t *b = key.buf;
    for (size_t k = 0; k < words; k++)
        w[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 | (uint32_t)b[4 * k + 2] << 16 |
               (uint32_t)b[4 * k + 3] << 24;
    PyBuffer_Release(&key);
    mk_venv_seed(&v->slots[i], w, words);
    Py_RETURN_NONE;
}

static PyObject *kv_reset(PyObject *self, PyObject *arg) {
    KVecEnvObject *v = (KVecEnvObject *)self;
    int i = slot_arg(v, arg);
    if (i < 0) return NULL;
    mk_venv_reset_slot(&v->cfg, v->slots, i, &v->out, v->work);
    Py_RETURN_NONE;
}

static PyObject *kv_step(PyObject *self, PyObject *unused) {
    (void)unused;
    KVecEnvObject *v = (KVecEnvObject *)self;
    if (!v->slots) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv was not initialised");
        return NULL;
    }
    if (v->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the VecEnv is stepping in another thread");
        return NULL;
    }
    v->busy = 1;
    int refused;
    Py_BEGIN_ALLOW_THREADS
    refused = mk_venv_refused(&v->cfg, v->slots, v->n, v->out.actions);
    if (refused < 0) refused = -1 - mk_venv_step(&v->cfg, v->slots, v->n, &v->out, v->work);
    Py_END_ALLOW_THREADS
    v->busy = 0;
    return PyLong_FromLong(refused);
}

static PyObject *kv_slot(PyObject *self, PyObject *arg) {
    KVecEnvObject *v = (KVecEnvObject *)self;
    int i = slot_arg(v, arg);
    if (i < 0) return NULL;
    const mk_slot *s = &v->slots[i];
    PyObject *deal = kd_new(&s->d);
    if (!deal) return NULL;
    return Py_BuildValue("(iiNiii)", (int)s->d.dealer, (int)s->d.turned_up, deal, (int)s->done,
                         (int)s->needs_reset, (int)s->seat);
}

static PyMethodDef kv_methods[] = {
    {"seed", kv_seed, METH_VARARGS, "seed(i, key): slot i's seed stream as random.Random(n), "
                                    "n's 32-bit words little-endian in key"},
    {"reset", kv_reset, METH_O, "reset(i): a new episode in slot i"},
    {"step", kv_step, METH_NOARGS,
     "step() -> the first refused slot (nothing moved), else -1 - the episodes ended"},
    {"slot", kv_slot, METH_O, "slot(i) -> (dealer, turned_up, Deal, done, needs_reset, seat)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject KVecEnv_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "marjolet._kernel.VecEnv",
    .tp_basicsize = sizeof(KVecEnvObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "VecEnv(num_envs, rules, target, reward, opponent, seat, autoreset, "
              "illegal_raise, worst, buffers): a batch of research environments",
    .tp_methods = kv_methods,
    .tp_init = kv_init,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = kv_dealloc,
};

/* encode(deal, seat, totals, target, out): the tensor of `seat` in a
 * kernel Deal into the float32 buffer `out` (335 entries); for the tests
 * that hold the C encoder to marjolet.rl.encoder.encode */
static PyObject *k_encode(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *deal_obj, *out_obj;
    int seat, t0, t1, target;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "Oi(ii)iO", &deal_obj, &seat, &t0, &t1, &target, &out_obj))
        return NULL;
    KDealObject *d = kd_check(deal_obj);
    if (!d) return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    const char *f = out.format ? out.format : "B";
    if (!in_range(seat, 0, 1, "seat") || !in_range(target, 1, 1000000000, "target") ||
        out.len != (Py_ssize_t)(sizeof(float) * MK_OBS_SIZE) || out.itemsize != 4 ||
        !strchr("f", f[0] == '<' || f[0] == '=' ? f[1] : f[0])) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "out must be a float32 buffer of %d entries",
                         MK_OBS_SIZE);
        PyBuffer_Release(&out);
        return NULL;
    }
    int32_t totals[2] = {t0, t1};
    mk_encode(&d->d, seat, totals, target, out.buf);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* pyrand_words(seeds, count): the first `count` outputs (getrandbits(32))
 * of random.Random(seed) for each seed (a str of at most 192 UTF-8 bytes,
 * or an int 0 <= n < 2**64), the generators seeded together as the batch
 * seeds them (the tests hold them to CPython's) */
static int pyrand_head_from(PyObject *seed, mk_pyhead *h) {
    if (PyUnicode_Check(seed)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(seed, &len);
        if (!text) return -1;
        if (len < 1 || len > MK_TEXT_MAX || text[0] == 0) {
            PyErr_Format(PyExc_ValueError, "a str seed must have 1..%d UTF-8 bytes", MK_TEXT_MAX);
            return -1;
        }
        mk_pyhead_init_text(h, text, (size_t)len);
        return 0;
    }
    unsigned long long n = PyLong_AsUnsignedLongLong(seed);
    if (n == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    uint32_t key[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
    mk_pyhead_init(h, key, key[1] ? 2 : 1);
    return 0;
}

static PyObject *k_pyrand_words(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *seeds, *result = NULL;
    int count;
    if (!PyArg_ParseTuple(args, "O!i", &PyTuple_Type, &seeds, &count)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seeds);
    if (n < 1 || n > 256 || count < 0 || count > 4096) {
        PyErr_SetString(PyExc_ValueError, "1..256 seeds and 0..4096 words");
        return NULL;
    }
    mk_pyhead *heads = PyMem_Calloc((size_t)n, sizeof *heads);
    mk_pyhead **ptrs = PyMem_Calloc((size_t)n, sizeof *ptrs);
    mk_pyrand_work *work = PyMem_Calloc(1, sizeof *work);
    if (!heads || !ptrs || !work) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (pyrand_head_from(PyTuple_GET_ITEM(seeds, i), &heads[i]) < 0) goto done;
        ptrs[i] = &heads[i];
    }
    mk_pyrand_heads(ptrs, (int)n, work);
    result = PyList_New(n);
    for (Py_ssize_t i = 0; result && i < n; i++) {
        PyObject *words = PyList_New(count);
        if (!words) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, i, words);
        for (int k = 0; k < count; k++) {
            PyObject *v = PyLong_FromUnsignedLong(mk_pyhead_u32(&heads[i]));
            if (!v) {
                Py_CLEAR(result);
                break;
            }
            PyList_SET_ITEM(words, k, v);
        }
    }
done:
    PyMem_Free(heads);
    PyMem_Free(ptrs);
    PyMem_Free(work);
    return result;
}

static PyMethodDef kv_functions[] = {
    {"pyrand_words", k_pyrand_words, METH_VARARGS,
     "pyrand_words(seeds, count): the first count outputs of random.Random(seed) for each "
     "seed (str or int < 2**64), seeded together as the batch seeds them"},
    {"encode", k_encode, METH_VARARGS,
     "encode(deal, seat, (total0, total1), target, out): the observation tensor into out"},
    {NULL, NULL, 0, NULL},
};

int kernel_add_vecenv(PyObject *m) {
    if (PyModule_AddFunctions(m, kv_functions) < 0) return -1;
    if (PyType_Ready(&KVecEnv_Type) < 0) return -1;
    Py_INCREF(&KVecEnv_Type);
    if (PyModule_AddObject(m, "VecEnv", (PyObject *)&KVecEnv_Type) < 0) {
        Py_DECREF(&KVecEnv_Type);
        return -1;
    }
    return 0;
}
