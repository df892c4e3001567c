/* fuzz_compile.c - libFuzzer target over the front end, inference and
 * lowering: bytes -> lex -> parse -> infer -> lower -> LLVMVerifyModule.
 *
 * An input is the source of one function, optionally preceded by a line
 * `# args: <typecodes>` (abi.h typecodes, as in the golden files tests/compile/NAME.py); without
 * it the parameters get types from a fixed cycle (1-D float64 array, int64,
 * float64, 2-D float64 array, 1-D int64 array, bool).  The environment is
 * the one tests/c/hjfront.c gives: np/numpy, math, the builtins.
 *
 * Findings: a crash, a sanitizer report, a hang (libFuzzer's -timeout), a
 * leak (LeakSanitizer), or a compilation that fails with an internal error
 * (HJ_DIAG_LOWERING / HJ_DIAG_LLVM: the lowering refused what inference
 * accepted, or LLVM's verifier refused the module): those abort() so that
 * libFuzzer keeps the input.  Syntax, typing and unsupported errors are
 * the expected answers to bad input.
 *
 * Built with -DHPCJIT_FUZZ=ON by clang (see tests/fuzz/CMakeLists.txt); the
 * same file with -DFUZZ_REPLAY_MAIN is `fuzz_replay FILE...`, which runs the
 * regression inputs in tests/fuzz/regressions/ under CTest in every build. */
#include "ast.h"

#include <llvm-c/Core.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static HjEnvEntry *make_env(int *nenv) {
    static const char *const excs[] = {"ValueError", "IndexError", "ZeroDivisionError",
                                       "TypeError", "AssertionError", "KeyError", "RuntimeError"};
    static const char *const builtins[] = {
#define BUILTIN(id, name) name,
#include "builtins.def"
#undef BUILTIN
    };
    enum { NEXC = sizeof excs / sizeof excs[0] };
    int cap = 3 + (int)(sizeof builtins / sizeof builtins[0]) + NEXC;
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
    static char qual[NEXC][40];
    for (int i = 0; i < NEXC; i++) {
        snprintf(qual[i], sizeof qual[i], "builtins.%s", excs[i]);
        env[n++] = (HjEnvEntry){.name = excs[i], .kind = HJ_ENV_BUILTIN, .qualname = qual[i]};
    }
    *nenv = n;
    return env;
}

static const char *const cycle[] = {"ad1C", "l", "d", "ad2C", "al1C", "?"};

/* Up to 16 typecodes: from the `# args:` line, else from the cycle by the
 * number of parameters of `fn`. */
static int arg_codes(const char *text, const Node *fn, char *buf, size_t cap, const char **argv) {
    int n = 0;
    if (strncmp(text, "# args:", 7) == 0) {
        const char *eol = strchr(text, '\n');
        size_t len = eol ? (size_t)(eol - text - 7) : strlen(text + 7);
        if (len >= cap)
            len = cap - 1;
        memcpy(buf, text + 7, len);
        buf[len] = '\0';
        for (char *tok = strtok(buf, " \t\r"); tok && n < 16; tok = strtok(NULL, " \t\r"))
            argv[n++] = tok;
        return n;
    }
    for (int i = 0; i < fn->params.len && n < 16; i++) {
        const Node *p = VEC_AT(fn->params, i);
        if (p->is_star || p->is_kwstar)
            continue;
        argv[n] = cycle[n % (int)(sizeof cycle / sizeof cycle[0])];
        n++;
    }
    return n;
}

static void finding(const Diag *d, const char *text) {
    fprintf(stderr, "fuzz_compile: internal error (%d): %s\n--- input ---\n%s\n", (int)d->kind,
            d->message ? d->message : "?", text);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* an embedded NUL ends the source, as a C string */

    Compilation c;
    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    diag_init(&c.diag);
    int nenv = 0;
    HjEnvEntry *env = make_env(&nenv);
    LLVMContextRef ctx = NULL;
    LLVMModuleRef mod = NULL;
    char codes[256], name[128];
    const char *argv[16];
    Type *argtys[16];
    SrcFile file = {.name = "fuzz.py", .text = text};
    Node *fn = env ? parse_function(&c.arena, &file, &c.diag) : NULL;
    if (!fn)
        goto done;
    int nargs = arg_codes(text, fn, codes, sizeof codes, argv);
    snprintf(name, sizeof name, "%s", fn->name ? fn->name : "f"); /* fn dies with the arena */
    HjFunction hf = {.name = name, .qualname = name, .filename = "fuzz.py", .source = text,
                     .first_line = 1, .env = env, .nenv = nenv};
    HjRequest req = {.funcs = &hf, .nfuncs = 1, .entry = 0, .argtypes = argv, .nargs = nargs};
    /* a fresh compilation: parse_function above only found the parameters */
    diag_free(&c.diag);
    arena_free(&c.arena);
    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    diag_init(&c.diag);
    c.req = &req;
    c.tc = ty_ctx_new(&c.arena);
    for (int i = 0; i < nargs; i++) {
        const char *p = argv[i];
        argtys[i] = ty_from_typecode(c.tc, &p);
        if (!argtys[i] || *p)
            goto done; /* a bad `# args:` line */
    }
    Spec *entry = infer_spec(&c, 0, argtys, nargs, NULL);
    if (!entry)
        goto check;
    if (!c.entry)
        c.entry = entry;
    int index = 0;
    for (Spec *s = c.specs; s; s = s->next, index++)
        s->symbol = arena_printf(&c.arena, "hj_fuzz_%d", index);
    if (!c.specs)
        c.entry->symbol = "hj_fuzz_0";
    ctx = LLVMContextCreate();
    mod = lower_program(&c, ctx, "hj_entry_fuzz");
check:
    if (diag_failed(&c.diag) && (c.diag.kind == HJ_DIAG_LOWERING || c.diag.kind == HJ_DIAG_LLVM))
        finding(&c.diag, text);
done:
    if (mod)
        LLVMDisposeModule(mod);
    if (ctx)
        LLVMContextDispose(ctx);
    diag_free(&c.diag);
    arena_free(&c.arena);
    free(env);
    free(text);
    return 0;
}

#ifdef FUZZ_REPLAY_MAIN
/* fuzz_replay FILE...: run each input once (the regression corpus). */
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "fuzz_replay: cannot read %s\n", argv[i]);
            return 2;
        }
        StrBuf b;
        sb_init(&b);
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            sb_putn(&b, buf, n);
        fclose(f);
        size_t len = b.len;
        char *s = sb_take(&b);
        LLVMFuzzerTestOneInput((const uint8_t *)s, len);
        free(s);
    }
    printf("fuzz_replay: %d inputs, no finding\n", argc - 1);
    return 0;
}
#endif
