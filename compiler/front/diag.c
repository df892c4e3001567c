/* diag.c - formatting of diagnostics with file:line:col, source line, caret. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(Diag *d) { memset(d, 0, sizeof *d); }

void diag_free(Diag *d) {
    free(d->message);
    free(d->short_msg);
    free(d->filename);
    diag_init(d);
}

/* The text of line `line` (1-based) of `text`, without its newline. */
static const char *line_start(const char *text, int line, int *len) {
    const char *p = text;
    for (int l = 1; l < line && *p; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (*e && *e != '\n' && *e != '\r')
        e++;
    *len = (int)(e - p);
    return p;
}

int diag_verror(Diag *d, HjDiagKind kind, SrcLoc loc, const char *fmt, va_list ap) {
    if (diag_failed(d))
        return -1;
    StrBuf msg;
    sb_init(&msg);
    va_list ap2;
    va_copy(ap2, ap);
    char tmp[1];
    int n = vsnprintf(tmp, 0, fmt, ap2);
    va_end(ap2);
    char *shortm = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (shortm)
        vsnprintf(shortm, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);

    const SrcFile *f = loc.file;
    int uline = 0, ucol = 0;
    if (f) {
        uline = loc.line + f->line_offset;
        ucol = loc.col + f->col_offset;
        sb_printf(&msg, "%s:%d:%d: error: %s", f->name ? f->name : "<unknown>", uline, ucol,
                  shortm ? shortm : "");
        if (f->text && loc.line > 0) {
            int len;
            const char *ls = line_start(f->text, loc.line, &len);
            /* print the line as it is in the user's file: re-add the
             * indentation removed by dedenting */
            sb_puts(&msg, "\n    ");
            for (int i = 0; i < f->col_offset; i++)
                sb_putc(&msg, ' ');
            sb_putn(&msg, ls, (size_t)len);
            sb_puts(&msg, "\n    ");
            for (int i = 1; i < ucol; i++)
                sb_putc(&msg, (i - 1 - f->col_offset >= 0 && i - 1 - f->col_offset < len &&
                               ls[i - 1 - f->col_offset] == '\t')
                                  ? '\t'
                                  : ' ');
            sb_putc(&msg, '^');
        }
    } else {
        sb_printf(&msg, "error: %s", shortm ? shortm : "");
    }
    d->kind = kind;
    d->message = sb_take(&msg);
    d->short_msg = shortm;
    d->filename = (f && f->name) ? strdup(f->name) : NULL;
    d->line = uline;
    d->col = ucol;
    return -1;
}

int diag_error(Diag *d, HjDiagKind kind, SrcLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, kind, loc, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_error_noloc(Diag *d, HjDiagKind kind, const char *fmt, ...) {
    SrcLoc none = {0};
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, kind, none, fmt, ap);
    va_end(ap);
    return -1;
}
