/* search_binding.c -- the search methods of marjolet._kernel.
 *
 * The best-bot work (sampling, PIMC / exact late search over worlds) adds
 * its Python-visible functions here: append PyMethodDef rows before the
 * sentinel. module.c merges this table with kernel_core_methods at import,
 * so nothing else needs editing. Use binding.h for the object layouts. */
#include "binding.h"

PyMethodDef kernel_search_methods[] = {
    {NULL, NULL, 0, NULL} /* sentinel */
};
