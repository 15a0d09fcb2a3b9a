#ifndef CPANGOCAIRO_SHIM_H
#define CPANGOCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>

/* PANGO_SCALE is a macro Swift cannot import. */
static inline int cpc_pango_scale(void) { return PANGO_SCALE; }

#endif
