/* diag.h - the one diagnostics path of the compiler.
 *
 * Every error carries a SrcLoc.  The first error of a compilation is kept
 * (later ones are usually consequences) and compilation unwinds by return
 * codes.  The Python boundary (python/hpcjit/_compiler.c) turns the kept
 * diagnostic into one exception class per DiagKind.  Nothing here exits. */
#ifndef HPCJIT_DIAG_H
#define HPCJIT_DIAG_H

#include "util.h"
#include "hpcjit/compiler.h" /* HjDiagKind */

typedef struct SrcFile {
    const char *name;   /* the user's file name (co_filename) */
    const char *text;   /* dedented source of the function, NUL-terminated */
    int line_offset;    /* added to 1-based line numbers in `text` */
    int col_offset;     /* columns removed by dedenting, added back */
} SrcFile;

typedef struct SrcLoc {
    const SrcFile *file;
    int line; /* 1-based, within file->text (offset added when printed) */
    int col;  /* 1-based, within file->text (offset added when printed) */
} SrcLoc;

typedef struct Diag {
    HjDiagKind kind; /* HJ_DIAG_NONE while no error */
    char *message;   /* malloc'ed: "f.py:12:9: error: ...\n  <line>\n  ^" */
    char *short_msg; /* malloc'ed: just the "..." part */
    char *filename;  /* malloc'ed copy of the file name, or NULL */
    int line, col;   /* user-file coordinates, 0 when unknown */
} Diag;

void diag_init(Diag *d);
void diag_free(Diag *d);
/* Record an error at `loc` unless one is already recorded.  Formats the full
 * message with file:line:col, the source line and a caret under the column.
 * Always returns -1 so callers can `return diag_error(...)`. */
int diag_error(Diag *d, HjDiagKind kind, SrcLoc loc, const char *fmt, ...) HJ_PRINTF(4, 5);
int diag_verror(Diag *d, HjDiagKind kind, SrcLoc loc, const char *fmt, va_list ap);
/* An error with no source location (LLVM failures, out of memory). */
int diag_error_noloc(Diag *d, HjDiagKind kind, const char *fmt, ...) HJ_PRINTF(3, 4);
static inline bool diag_failed(const Diag *d) { return d->kind != HJ_DIAG_NONE; }

#endif
