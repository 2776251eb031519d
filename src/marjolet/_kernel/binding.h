/* binding.h -- the Python object layouts of marjolet._kernel, shared by
 * module.c and search_binding.c (and any later binding file).
 *
 *   _kernel.Deal   KDealObject: one mk_deal (copyable, checked play)
 *   _kernel.Table  KTableObject: one mk_tt transposition table
 *
 * Helpers for binding code:
 *   kd_check(obj)  -> KDealObject* or NULL with TypeError set
 *   kt_check(obj)  -> KTableObject* or NULL with TypeError set
 *   kt_acquire(t) / kt_release(t): mark a table in use by one search for
 *                     the time the GIL is released (called with the GIL);
 *                     kt_acquire fails with RuntimeError if another thread's
 *                     search holds it, so one table never serves two at once
 *   kd_new(&deal)  -> a new Deal object holding a copy of deal (or NULL)
 *   kd_rules_from(obj, &rules) -> 0, or -1 with an exception (a rules tuple
 *                     (pattern_222, all_tricks_bonus, dix_on_play, same_suit,
 *                     one_meld) as marjolet.kernel.rules_tuple builds it)
 */
#ifndef MARJOLET_BINDING_H
#define MARJOLET_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "kernel.h"

typedef struct {
    PyObject_HEAD
    mk_deal d;
} KDealObject;

typedef struct {
    PyObject_HEAD
    mk_tt t;
    int busy; /* a search is using t with the GIL released (kt_acquire) */
} KTableObject;

extern PyTypeObject KDeal_Type;
extern PyTypeObject KTable_Type;

KDealObject *kd_check(PyObject *obj);
KTableObject *kt_check(PyObject *obj);
int kt_acquire(KTableObject *t);
void kt_release(KTableObject *t);
PyObject *kd_new(const mk_deal *d);
int kd_rules_from(PyObject *obj, mk_rules *r);

/* method tables: module.c's own and the search ones (search_binding.c) */
extern PyMethodDef kernel_core_methods[];
extern PyMethodDef kernel_search_methods[];

/* vecenv_binding.c: adds the type VecEnv to the module (0, or -1) */
int kernel_add_vecenv(PyObject *m);

#endif
