#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
#include <libpq-fe.h>

// PG_DIAG_SQLSTATE is a character-literal macro: expose it as a function.
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
#endif
