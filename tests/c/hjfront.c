/* hjfront - front-end driver for the golden tests (tests/compile/NAME.py).
 *
 *   hjfront FILE.py
 *
 * Parses the one function of FILE.py and prints "ok", or the diagnostic's
 * full message (exit 1).  When the first line is `# args: <typecodes>`
 * (abi.h typecodes separated by spaces, e.g. `# args: d l ad2C`) it also
 * runs type inference for those argument types, with the environment a
 * module of numeric code usually has (np/numpy, math, the builtins). */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    StrBuf b;
    sb_init(&b);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(&b, buf, n);
    fclose(f);
    if (b.oom) {
        sb_free(&b);
        return NULL;
    }
    return sb_take(&b);
}

static int fail(const Diag *d) {
    printf("%s\n", d->message ? d->message : "error");
    return 1;
}

/* The global names every golden test may use. */
static HjEnvEntry *make_env(int *nenv) {
    static const char *const excs[] = {"ValueError", "IndexError", "ZeroDivisionError",
                                       "TypeError", "AssertionError"};
    static const char *const builtins[] = {
#define BUILTIN(id, name) name,
#include "builtins.def"
#undef BUILTIN
    };
    int cap = 3 + (int)(sizeof builtins / sizeof builtins[0]) + 5;
    HjEnvEntry *env = calloc((size_t)cap, sizeof *env);
    if (!env)
        return NULL;
    int n = 0;
    env[n++] = (HjEnvEntry){.name = "np", .kind = HJ_ENV_MODULE, .qualname = "numpy"};
    env[n++] = (HjEnvEntry){.name = "numpy", .kind = HJ_ENV_MODULE, .qualname = "numpy"};
    env[n++] = (HjEnvEntry){.name = "math", .kind = HJ_ENV_MODULE, .qualname = "math"};
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strncmp(builtins[i], "builtins.", 9) == 0)
            env[n++] = (HjEnvEntry){.name = builtins[i] + 9, .kind = HJ_ENV_BUILTIN,
                                    .qualname = builtins[i]};
    static char qual[5][40];
    for (int i = 0; i < 5; i++) {
        snprintf(qual[i], sizeof qual[i], "builtins.%s", excs[i]);
        env[n++] = (HjEnvEntry){.name = excs[i], .kind = HJ_ENV_BUILTIN, .qualname = qual[i]};
    }
    *nenv = n;
    return env;
}

/* Inference of the function for the typecodes listed in `args`. */
static int run_inference(const char *text, const char *basename, const char *fname,
                         const char *args) {
    int rc = 1, nenv = 0, nargs = 0;
    HjEnvEntry *env = make_env(&nenv);
    char *codes = strdup(args);
    const char *argv[64];
    Compilation c;
    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    diag_init(&c.diag);
    if (!env || !codes) {
        printf("out of memory\n");
        goto done;
    }
    for (char *tok = strtok(codes, " \t\r\n"); tok && nargs < 64; tok = strtok(NULL, " \t\r\n"))
        argv[nargs++] = tok;

    HjFunction fn = {.name = fname, .qualname = fname, .filename = basename, .source = text,
                     .first_line = 1, .env = env, .nenv = nenv};
    HjRequest req = {.funcs = &fn, .nfuncs = 1, .entry = 0, .argtypes = argv, .nargs = nargs};
    c.req = &req;
    c.tc = ty_ctx_new(&c.arena);
    Type *argtys[64];
    for (int i = 0; i < nargs; i++) {
        const char *p = argv[i];
        argtys[i] = ty_from_typecode(c.tc, &p);
        if (!argtys[i] || *p) {
            printf("hjfront: bad typecode '%s'\n", argv[i]);
            goto done;
        }
    }
    if (!infer_spec(&c, 0, argtys, nargs, NULL)) {
        rc = fail(&c.diag);
        goto done;
    }
    printf("ok\n");
    rc = 0;
done:
    diag_free(&c.diag);
    arena_free(&c.arena);
    free(codes);
    free(env);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hjfront FILE.py\n");
        return 2;
    }
    char *text = read_file(argv[1]);
    if (!text) {
        fprintf(stderr, "hjfront: cannot read %s\n", argv[1]);
        return 2;
    }
    const char *base = strrchr(argv[1], '/');
    base = base ? base + 1 : argv[1];

    Arena a;
    Diag d;
    arena_init(&a);
    diag_init(&d);
    SrcFile file = {.name = base, .text = text};
    int rc;
    Node *fn = parse_function(&a, &file, &d);
    if (!fn) {
        rc = fail(&d);
    } else if (strncmp(text, "# args:", 7) == 0) {
        const char *eol = strchr(text, '\n');
        char *args = strndup(text + 7, eol ? (size_t)(eol - text - 7) : strlen(text + 7));
        rc = args ? run_inference(text, base, fn->name, args) : 1;
        free(args);
    } else {
        printf("ok\n");
        rc = 0;
    }
    diag_free(&d);
    arena_free(&a);
    free(text);
    return rc;
}
