/* driver.c - hj_compile: typecodes -> inference -> lowering -> object
 * bytes, with every resource of one compilation freed at its end.
 *
 * The work runs on a helper thread with a 64 MiB stack: the parser and
 * inference bound their depth, but deep (yet legal) inputs still recurse,
 * and the caller's thread (Python's main thread, 8 MiB, or a small worker
 * stack) must never overflow. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ast.h"
#include "codegen.h"

#define COMPILE_STACK_SIZE ((size_t)64 << 20)

/* Process-unique numbers for symbol names: loads get their own JITDylib,
 * but unique names keep objects linkable together (caches, MPI). */
static atomic_ulong compile_counter;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A symbol-safe copy of a Python identifier (non-ASCII letters become _). */
static char *symbol_name(Arena *a, const char *prefix, const char *name, unsigned long n,
                         int index) {
    char *s = index >= 0 ? arena_printf(a, "%s_%s_%lu_%d", prefix, name ? name : "f", n, index)
                         : arena_printf(a, "%s_%s_%lu", prefix, name ? name : "f", n);
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            *p = '_';
    return s;
}

static char *take_typecode(const Type *t) {
    StrBuf b;
    sb_init(&b);
    ty_typecode(&b, t);
    return sb_take(&b);
}

/* "(float64, array(float64, 2d, C)) -> float64" */
static char *display_signature(Type **argtys, int nargs, const Type *ret) {
    StrBuf b;
    sb_init(&b);
    sb_putc(&b, '(');
    for (int i = 0; i < nargs; i++) {
        if (i)
            sb_puts(&b, ", ");
        ty_name(&b, argtys[i]);
    }
    sb_puts(&b, ") -> ");
    ty_name(&b, ret);
    return sb_take(&b);
}

static void copy_diag(HjResult *res, const Diag *d) {
    res->diag_kind = d->kind;
    res->diag_message = strdup(d->message ? d->message : "compilation failed");
    res->diag_filename = d->filename ? strdup(d->filename) : NULL;
    res->diag_line = d->line;
    res->diag_col = d->col;
}
/* t is or holds a module (a value with no run-time part, infer.c) */
static bool has_module(const Type *t) {
    if (t->kind == TY_MODULE)
        return true;
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->nelems; i++)
            if (has_module(t->elems[i]))
                return true;
    return false;
}


static int compile_work(const HjRequest *req, HjResult *res) {
    Compilation c;
    LLVMContextRef ctx = NULL;
    LLVMModuleRef mod = NULL;
    HjTarget target = {0};
    Type **argtys = NULL;
    Type *explicit_ret = NULL;
    char *ir = NULL;
    int rc = -1;
    double t0 = now_seconds(), t1;

    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    diag_init(&c.diag);
    c.req = req;
    c.tc = ty_ctx_new(&c.arena);

    if (HJ_ENTRY_IS_CUDA(req->entry_kind) && !req->cuda) {
        diag_error_noloc(&c.diag, HJ_DIAG_SIGNATURE, "a CUDA compilation needs its options");
        goto done;
    }
    if (req->entry < 0 || req->entry >= req->nfuncs || req->nargs < 0) {
        diag_error_noloc(&c.diag, HJ_DIAG_SIGNATURE, "bad compilation request (entry %d of %d)",
                         req->entry, req->nfuncs);
        goto done;
    }
    argtys = arena_alloc(&c.arena, sizeof(Type *) * (size_t)(req->nargs + 1));
    c.arg_const = arena_alloc(&c.arena, sizeof(char *) * (size_t)(req->nargs + 1));
    for (int i = 0; i < req->nargs; i++) {
        const char *p = req->argtypes[i];
        argtys[i] = p ? ty_from_typecode(c.tc, &p) : NULL;
        if (argtys[i] && *p == '=' && ty_is_number(argtys[i]) && p[1]) { /* an omitted argument's value */
            c.arg_const[i] = p + 1;
            p += strlen(p);
        }
        if (!argtys[i] || *p) {
            diag_error_noloc(&c.diag, HJ_DIAG_SIGNATURE, "bad typecode '%s' for argument %d",
                             req->argtypes[i] ? req->argtypes[i] : "(null)", i + 1);
            goto done;
        }
    }
    if (req->rettype) {
        const char *p = req->rettype;
        explicit_ret = ty_from_typecode(c.tc, &p);
        if (!explicit_ret || *p) {
            diag_error_noloc(&c.diag, HJ_DIAG_SIGNATURE, "bad return typecode '%s'",
                             req->rettype);
            goto done;
        }
    }

    c.entry_kind = req->entry_kind;
    Spec *entry = infer_spec(&c, req->entry, argtys, req->nargs, explicit_ret);
    if (!entry)
        goto done;
    if (!c.entry)
        c.entry = entry;
    for (int i = 0; i < req->nargs && !HJ_ENTRY_IS_CUDA(c.entry_kind); i++)
        if (ty_has_float16(argtys[i])) { /* an argument the body never reads */
            diag_error(&c.diag, HJ_DIAG_UNSUPPORTED, entry->fn->loc,
                       "float16 is supported only in CUDA kernels and device functions, not on the CPU "
                       "(argument %d)", i + 1);
            goto done;
        }
    if (c.entry_kind == 0 && entry->ret && ty_has_function(entry->ret)) {
        diag_error(&c.diag, HJ_DIAG_TYPING, entry->fn->loc,
                   "%s() returns %s: a function cannot be returned to Python", req->funcs[req->entry].name,
                   ty_str(&c.arena, entry->ret));
        goto done;
    }
    if (c.entry_kind == 0 && entry->ret && has_module(entry->ret)) {
        diag_error(&c.diag, HJ_DIAG_TYPING, entry->fn->loc,
                   "%s() returns %s: a module cannot be returned to Python", req->funcs[req->entry].name,
                   ty_str(&c.arena, entry->ret));
        goto done;
    }
    if (req->want_types) {
        res->types_text = infer_types_text(&c, c.entry);
        if (!res->types_text) {
            diag_error_noloc(&c.diag, HJ_DIAG_MEMORY, "out of memory in inspect_types");
            goto done;
        }
    }

    unsigned long n = atomic_fetch_add(&compile_counter, 1) + 1;
    int index = 0;
    for (Spec *s = c.specs; s; s = s->next, index++)
        s->symbol = symbol_name(&c.arena, "hj", s->hf ? s->hf->name : NULL, n, index);
    if (!c.specs) /* an inference that keeps no list: the entry alone */
        c.entry->symbol = symbol_name(&c.arena, "hj", c.entry->hf ? c.entry->hf->name : NULL, n, 0);
    const char *entry_symbol =
        symbol_name(&c.arena, "hj_entry", c.entry->hf ? c.entry->hf->name : NULL, n, -1);
    if (c.arena.oom) {
        diag_error_noloc(&c.diag, HJ_DIAG_MEMORY, "out of memory");
        goto done;
    }
    t1 = now_seconds();
    res->seconds_frontend = t1 - t0;

    ctx = LLVMContextCreate();
    mod = lower_program(&c, ctx, entry_symbol);
    if (!mod)
        goto done;
    res->seconds_lower = now_seconds() - t1;
    if (HJ_ENTRY_IS_CUDA(req->entry_kind)) { /* PTX text for the GPU (backend/ptx.c) */
        res->cuda_error_global = LLVMGetNamedGlobal(mod, "__hpcjit_error") != NULL;
        if (codegen_compile_ptx(mod, req->cuda, req->target ? req->target->opt_level : 3, entry_symbol,
                                &res->object, &res->object_size, req->want_llvm_ir ? &ir : NULL, &c.diag) < 0)
            goto done;
    } else {
        if (req->target)
            target = *req->target;
        hj_target_host(&target); /* copies the given fields, fills the rest */
        if (req->target)
            target.opt_level = req->target->opt_level;
        CodegenTimes times = {0, 0};
        if (codegen_compile(mod, &target, &res->object, &res->object_size,
                            req->want_llvm_ir ? &ir : NULL, &times, &c.diag) < 0)
            goto done;
        res->seconds_opt = times.opt;
        res->seconds_emit = times.emit;
    }
    res->llvm_ir = ir;
    ir = NULL;
    res->entry_symbol = strdup(entry_symbol);
    res->rettype = take_typecode(c.entry->ret);
    res->uses_mpi = c.uses_mpi;
    res->signature = display_signature(argtys, req->nargs, c.entry->ret);
    if (!res->entry_symbol || !res->rettype || !res->signature) {
        diag_error_noloc(&c.diag, HJ_DIAG_MEMORY, "out of memory");
        goto done;
    }
    res->seconds_llvm = now_seconds() - t1;
    rc = 0;
done:
    if (rc < 0) {
        if (!diag_failed(&c.diag)) /* a pass failed without saying why */
            diag_error_noloc(&c.diag, c.arena.oom ? HJ_DIAG_MEMORY : HJ_DIAG_LOWERING,
                             c.arena.oom ? "out of memory" : "compilation failed");
        hj_result_free(res);
        copy_diag(res, &c.diag);
        if (c.need_overload)
            res->need_overload = strdup(c.need_overload);
    }
    free(ir);
    /* reverse order of creation */
    if (mod)
        LLVMDisposeModule(mod);
    if (ctx)
        LLVMContextDispose(ctx);
    hj_target_free(&target);
    diag_free(&c.diag);
    arena_free(&c.arena);
    return rc;
}

typedef struct CompileJob {
    const HjRequest *req;
    HjResult *res;
    int rc;
} CompileJob;

static void *compile_thread(void *p) {
    CompileJob *job = p;
    job->rc = compile_work(job->req, job->res);
    return NULL;
}

int hj_compile(const HjRequest *req, HjResult *res) {
    memset(res, 0, sizeof *res);
    CompileJob job = {req, res, -1};
    pthread_attr_t attr;
    pthread_t th;
    int started = 0;
    if (pthread_attr_init(&attr) == 0) {
        if (pthread_attr_setstacksize(&attr, COMPILE_STACK_SIZE) == 0 &&
            pthread_create(&th, &attr, compile_thread, &job) == 0)
            started = 1;
        pthread_attr_destroy(&attr);
    }
    if (started)
        pthread_join(th, NULL);
    else /* no thread to be had: the front end's own depth limits still hold */
        compile_thread(&job);
    return job.rc;
}

void hj_result_free(HjResult *res) {
    if (!res)
        return;
    free(res->object);
    free(res->entry_symbol);
    free(res->rettype);
    free(res->signature);
    free(res->llvm_ir);
    free(res->types_text);
    free(res->diag_message);
    free(res->diag_filename);
    free(res->need_overload);
    memset(res, 0, sizeof *res);
}
