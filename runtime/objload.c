/* objload.c - a small loader for the ELF relocatable objects hpcjit's back
 * end writes (see hpcjit/objload.h for what it accepts and why).
 *
 * Layout of the one mapping it makes, each group page-aligned so that it
 * can be protected on its own:
 *   [ executable sections | stubs ]  r-x
 *   [ read-only sections  | GOT   ]  r--
 *   [ writable sections (data, bss) ] rw-
 * Everything inside the mapping is within +-2 GiB of everything else, so
 * PC-relative references between sections always fit; references to
 * symbols outside (the runtime, libm) go through a GOT slot or a stub. */
#define _GNU_SOURCE
#include "hpcjit/objload.h"

#include "hpcjit/runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* compiler-rt/libgcc routines LLVM calls for some operations; the JIT
 * (compiler/backend/jit.c) registers the same list */
extern double __powidf2(double, int);
extern float __powisf2(float, int);
extern __int128 __divti3(__int128, __int128);
extern __int128 __modti3(__int128, __int128);
extern unsigned __int128 __udivti3(unsigned __int128, unsigned __int128);
extern unsigned __int128 __umodti3(unsigned __int128, unsigned __int128);
extern _Complex double __muldc3(double, double, double, double);
extern _Complex double __divdc3(double, double, double, double);
extern _Complex float __mulsc3(float, float, float, float);
extern _Complex float __divsc3(float, float, float, float);

#define HELPER(fn) { #fn, (void *)(uintptr_t)&fn }
static const RtSymbol helpers[] = {
    HELPER(__powidf2), HELPER(__powisf2), HELPER(__divti3), HELPER(__modti3),
    HELPER(__udivti3), HELPER(__umodti3), HELPER(__muldc3), HELPER(__divdc3),
    HELPER(__mulsc3),  HELPER(__divsc3),  { NULL, NULL },
};

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#endif
#define STUB_SIZE 16 /* x86-64: jmp *0(%rip); .quad target; 2 bytes of padding */

typedef struct {
    const unsigned char *obj;
    size_t size;
    const Elf64_Shdr *sh;
    int nsh;
    const Elf64_Sym *syms;
    int nsyms;
    const char *strtab;
    size_t strtab_size;
    size_t *sec_off;    /* nsh: offset of each allocated section in the mapping */
    uint64_t *symaddr;  /* nsyms: resolved address (0: none yet) */
    int *got;           /* nsyms: GOT slot index or -1 */
    int *stub;          /* nsyms: stub index or -1 */
    int ngot, nstub;
    unsigned char *base;
    size_t map_size, text_end, ro_end;
    size_t got_off, stub_off;
    char *err;
    size_t errlen;
} Loader;

static int fail(Loader *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err, L->errlen, fmt, ap);
    va_end(ap);
    /* names come from the object, which may be damaged: printable ASCII only */
    for (char *c = L->err; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
    return -1;
}

static bool in_bounds(const Loader *L, uint64_t off, uint64_t len) {
    return off <= L->size && len <= L->size - off;
}

static const char *sym_name(const Loader *L, const Elf64_Sym *s) {
    if (s->st_name >= L->strtab_size)
        return "?";
    return L->strtab + s->st_name;
}

static bool is_alloc(const Elf64_Shdr *s) { return (s->sh_flags & SHF_ALLOC) != 0; }

static void *resolve_external(const char *name) {
    for (const RtSymbol *s = rt_symbols(); s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s->address;
    for (const RtSymbol *s = helpers; s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s->address;
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p && strncmp(name, "_ZGV", 4) == 0) {
        /* libmvec's vector math (compiler/backend/vecmath.c): the compiler
         * opened it, but an object from the disk cache or another rank may
         * arrive first */
        void *h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
        p = h ? dlsym(h, name) : NULL;
    }
    return p;
}

static int read_headers(Loader *L) {
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)L->obj;
    if (L->size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return fail(L, "not an ELF object");
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        eh->e_type != ET_REL)
        return fail(L, "not a 64-bit little-endian relocatable ELF object");
#ifdef HOST_MACHINE
    if (eh->e_machine != HOST_MACHINE)
        return fail(L, "ELF machine %u is not this machine's", (unsigned)eh->e_machine);
#else
    return fail(L, "no object loader for this machine (the JIT loads it)");
#endif
    /* the tables are read in place: a damaged offset must not make them
     * misaligned (the buffer itself is 8-byte aligned, checked here) */
    if ((uintptr_t)L->obj % 8 != 0)
        return fail(L, "the object's buffer is not 8-byte aligned");
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shoff % 8 != 0 ||
        !in_bounds(L, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return fail(L, "bad section header table");
    L->sh = (const Elf64_Shdr *)(L->obj + eh->e_shoff);
    L->nsh = eh->e_shnum;
    for (int i = 0; i < L->nsh; i++) {
        const Elf64_Shdr *s = &L->sh[i];
        if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL && !in_bounds(L, s->sh_offset, s->sh_size))
            return fail(L, "section %d lies outside the object", i);
        if (s->sh_type == SHT_REL)
            return fail(L, "REL relocations are not supported");
        if ((s->sh_type == SHT_RELA || s->sh_type == SHT_SYMTAB) && s->sh_offset % 8 != 0)
            return fail(L, "section %d is misaligned", i);
        if (s->sh_type == SHT_RELA && s->sh_entsize != sizeof(Elf64_Rela))
            return fail(L, "bad relocation section %d", i);
        if (is_alloc(s) && (s->sh_flags & SHF_TLS))
            return fail(L, "thread-local sections are not supported");
        if (s->sh_type == SHT_INIT_ARRAY || s->sh_type == SHT_FINI_ARRAY ||
            s->sh_type == SHT_PREINIT_ARRAY)
            return fail(L, "constructor/destructor sections are not supported");
        if (s->sh_type == SHT_SYMTAB) {
            if (L->syms)
                return fail(L, "more than one symbol table");
            if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_link >= (unsigned)L->nsh)
                return fail(L, "bad symbol table");
            const Elf64_Shdr *st = &L->sh[s->sh_link];
            if (st->sh_type != SHT_STRTAB || !in_bounds(L, st->sh_offset, st->sh_size) ||
                st->sh_size == 0 || L->obj[st->sh_offset + st->sh_size - 1] != '\0')
                return fail(L, "bad string table");
            L->syms = (const Elf64_Sym *)(L->obj + s->sh_offset);
            L->nsyms = (int)(s->sh_size / sizeof(Elf64_Sym));
            L->strtab = (const char *)L->obj + st->sh_offset;
            L->strtab_size = st->sh_size;
        }
    }
    if (!L->syms)
        return fail(L, "no symbol table");
    return 0;
}

static bool needs_got(unsigned type) {
    return type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX || type == R_X86_64_REX_GOTPCRELX;
}

static bool may_need_stub(unsigned type) { return type == R_X86_64_PLT32 || type == R_X86_64_PC32; }

/* The relocation sections that apply to allocated sections, checked. */
static const Elf64_Shdr *rela_for(const Loader *L, int i) {
    const Elf64_Shdr *s = &L->sh[i];
    if (s->sh_type != SHT_RELA || s->sh_info >= (unsigned)L->nsh || !is_alloc(&L->sh[s->sh_info]))
        return NULL;
    return s;
}

/* Count GOT slots and stubs: one per symbol that needs one. */
static int plan_slots(Loader *L) {
    for (int i = 0; i < L->nsh; i++) {
        const Elf64_Shdr *rs = rela_for(L, i);
        if (!rs)
            continue;
        if (rs->sh_entsize != sizeof(Elf64_Rela))
            return fail(L, "bad relocation section %d", i);
        const Elf64_Rela *r = (const Elf64_Rela *)(L->obj + rs->sh_offset);
        size_t n = rs->sh_size / sizeof *r;
        for (size_t k = 0; k < n; k++) {
            unsigned type = ELF64_R_TYPE(r[k].r_info);
            uint64_t si = ELF64_R_SYM(r[k].r_info);
            if (si >= (uint64_t)L->nsyms)
                return fail(L, "relocation against symbol %llu out of range", (unsigned long long)si);
            if (needs_got(type) && L->got[si] < 0)
                L->got[si] = L->ngot++;
            if (may_need_stub(type) && L->syms[si].st_shndx == SHN_UNDEF && L->stub[si] < 0)
                L->stub[si] = L->nstub++;
        }
    }
    return 0;
}

/* far above any compiled function's code and constants: a bound that
 * keeps a damaged size from reserving the address space */
#define MAX_MAP ((uint64_t)1 << 30)

static size_t align_up(size_t v, size_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* Offsets of the allocated sections in the three groups. */
static int layout(Loader *L) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t off = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < L->nsh; i++) {
            const Elf64_Shdr *s = &L->sh[i];
            if (!is_alloc(s))
                continue;
            int group = (s->sh_flags & SHF_EXECINSTR) ? 0 : (s->sh_flags & SHF_WRITE) ? 2 : 1;
            if (group != pass)
                continue;
            if (s->sh_addralign > page)
                return fail(L, "section %d asks for alignment %llu", i, (unsigned long long)s->sh_addralign);
            if (s->sh_size > MAX_MAP || off > MAX_MAP)
                return fail(L, "section %d is too large (%llu bytes)", i, (unsigned long long)s->sh_size);
            off = align_up(off, s->sh_addralign);
            L->sec_off[i] = off;
            off += s->sh_size;
        }
        if (pass == 0) {
            off = align_up(off, 16);
            L->stub_off = off;
            off += (size_t)L->nstub * STUB_SIZE;
            L->text_end = off = align_up(off, page);
        } else if (pass == 1) {
            off = align_up(off, 8);
            L->got_off = off;
            off += (size_t)L->ngot * 8;
            L->ro_end = off = align_up(off, page);
        }
    }
    L->map_size = align_up(off, page);
    if (L->map_size > MAX_MAP)
        return fail(L, "the object is too large");
    if (L->map_size == 0)
        return fail(L, "the object has no code");
    return 0;
}

static int resolve_symbols(Loader *L) {
    for (int i = 1; i < L->nsyms; i++) {
        const Elf64_Sym *s = &L->syms[i];
        if (s->st_shndx == SHN_UNDEF) {
            const char *name = sym_name(L, s);
            if (!*name)
                continue;
            void *a = resolve_external(name);
            if (!a && ELF64_ST_BIND(s->st_info) != STB_WEAK)
                return fail(L, "undefined symbol %s", name);
            L->symaddr[i] = (uint64_t)(uintptr_t)a;
        } else if (s->st_shndx == SHN_ABS) {
            L->symaddr[i] = s->st_value;
        } else if (s->st_shndx == SHN_COMMON) {
            return fail(L, "common symbol %s is not supported", sym_name(L, s));
        } else if (s->st_shndx < L->nsh && is_alloc(&L->sh[s->st_shndx])) {
            /* a damaged object may name any value: keep it inside its section */
            if (s->st_value > L->sh[s->st_shndx].sh_size)
                return fail(L, "symbol %s lies outside its section", sym_name(L, s));
            L->symaddr[i] = (uint64_t)(uintptr_t)L->base + L->sec_off[s->st_shndx] + s->st_value;
        } else if (s->st_shndx >= SHN_LORESERVE) {
            return fail(L, "symbol %s in special section %u", sym_name(L, s), (unsigned)s->st_shndx);
        }
    }
    return 0;
}

static void fill_slots(Loader *L) {
    uint64_t *got = (uint64_t *)(L->base + L->got_off);
    for (int i = 0; i < L->nsyms; i++) {
        if (L->got[i] >= 0)
            got[L->got[i]] = L->symaddr[i];
        if (L->stub[i] >= 0) {
            unsigned char *p = L->base + L->stub_off + (size_t)L->stub[i] * STUB_SIZE;
            static const unsigned char jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 }; /* jmp *0(%rip) */
            memcpy(p, jmp, sizeof jmp);
            memcpy(p + 6, &L->symaddr[i], 8);
            p[14] = p[15] = 0xcc;
        }
    }
}

static bool fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static int apply_one(Loader *L, const Elf64_Shdr *target, const Elf64_Rela *r) {
    unsigned type = ELF64_R_TYPE(r->r_info);
    uint64_t si = ELF64_R_SYM(r->r_info);
    if (r->r_offset > target->sh_size || target->sh_size - r->r_offset < 4 ||
        (target->sh_type == SHT_NOBITS && type != R_X86_64_NONE))
        return fail(L, "relocation offset %llu outside its section", (unsigned long long)r->r_offset);
    unsigned char *P = L->base + L->sec_off[target - L->sh] + r->r_offset;
    uint64_t p = (uint64_t)(uintptr_t)P;
    uint64_t S = L->symaddr[si];
    int64_t A = r->r_addend;
    int64_t v;
    int32_t v32;
    switch (type) {
    case R_X86_64_NONE:
        return 0;
    case R_X86_64_64:
        if (target->sh_size - r->r_offset < 8)
            return fail(L, "relocation offset outside its section");
        v = (int64_t)(S + (uint64_t)A);
        memcpy(P, &v, 8);
        return 0;
    case R_X86_64_PC64:
        if (target->sh_size - r->r_offset < 8)
            return fail(L, "relocation offset outside its section");
        v = (int64_t)(S + (uint64_t)A - p);
        memcpy(P, &v, 8);
        return 0;
    case R_X86_64_PC32:
    case R_X86_64_PLT32:
        v = (int64_t)(S + (uint64_t)A - p);
        if (!fits_i32(v) && L->stub[si] >= 0) {
            uint64_t stub = (uint64_t)(uintptr_t)(L->base + L->stub_off + (size_t)L->stub[si] * STUB_SIZE);
            v = (int64_t)(stub + (uint64_t)A - p);
        }
        break;
    case R_X86_64_GOTPCREL:
    case R_X86_64_GOTPCRELX:
    case R_X86_64_REX_GOTPCRELX:
        v = (int64_t)((uint64_t)(uintptr_t)(L->base + L->got_off + (size_t)L->got[si] * 8) +
                      (uint64_t)A - p);
        break;
    case R_X86_64_32:
        v = (int64_t)(S + (uint64_t)A);
        if ((uint64_t)v > UINT32_MAX)
            return fail(L, "32-bit absolute relocation against %s does not fit", sym_name(L, &L->syms[si]));
        v32 = (int32_t)(uint32_t)v;
        memcpy(P, &v32, 4);
        return 0;
    case R_X86_64_32S:
        v = (int64_t)(S + (uint64_t)A);
        break;
    default:
        return fail(L, "relocation type %u is not supported", type);
    }
    if (!fits_i32(v))
        return fail(L, "relocation type %u against %s does not fit in 32 bits", type,
                    sym_name(L, &L->syms[si]));
    v32 = (int32_t)v;
    memcpy(P, &v32, 4);
    return 0;
}

static int relocate(Loader *L) {
    for (int i = 0; i < L->nsh; i++) {
        const Elf64_Shdr *rs = rela_for(L, i);
        if (!rs)
            continue;
        const Elf64_Shdr *target = &L->sh[rs->sh_info];
        const Elf64_Rela *r = (const Elf64_Rela *)(L->obj + rs->sh_offset);
        size_t n = rs->sh_size / sizeof *r;
        for (size_t k = 0; k < n; k++)
            if (apply_one(L, target, &r[k]) < 0)
                return -1;
    }
    return 0;
}

static void *find_symbol(Loader *L, const char *symbol) {
    for (int i = 1; i < L->nsyms; i++) {
        const Elf64_Sym *s = &L->syms[i];
        if (s->st_shndx != SHN_UNDEF && ELF64_ST_BIND(s->st_info) != STB_LOCAL &&
            strcmp(sym_name(L, s), symbol) == 0)
            return (void *)(uintptr_t)L->symaddr[i];
    }
    return NULL;
}

/* HPCJIT_ENABLE_PROFILING=1 (NUMBA_ENABLE_PROFILING as in Numba): name the
 * loaded functions in /tmp/perf-PID.map for `perf report`, as the LLVM
 * loader does (compiler/backend/jit.c); best effort, never an error. */
static void perf_map(const Loader *L) {
    const char *v = getenv("HPCJIT_ENABLE_PROFILING");
    if (!v)
        v = getenv("NUMBA_ENABLE_PROFILING");
    if (!v || !*v || strcmp(v, "0") == 0)
        return;
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
    FILE *out = fopen(path, "a");
    if (!out)
        return;
    for (int i = 1; i < L->nsyms; i++) {
        const Elf64_Sym *s = &L->syms[i];
        if (ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_size && s->st_shndx != SHN_UNDEF &&
            s->st_shndx < L->nsh && L->symaddr[i])
            fprintf(out, "%llx %llx %s\n", (unsigned long long)L->symaddr[i],
                    (unsigned long long)s->st_size, sym_name(L, s));
    }
    fclose(out);
}

void *rt_obj_load(const void *object, size_t size, const char *symbol, char *err, size_t errlen) {
    Loader L;
    void *entry = NULL;
    memset(&L, 0, sizeof L);
    L.obj = object;
    L.size = size;
    L.err = err;
    L.errlen = errlen;
    if (errlen)
        err[0] = '\0';
    if (read_headers(&L) < 0)
        return NULL;
    L.sec_off = calloc((size_t)L.nsh, sizeof *L.sec_off);
    L.symaddr = calloc((size_t)L.nsyms + 1, sizeof *L.symaddr);
    L.got = malloc(((size_t)L.nsyms + 1) * sizeof *L.got);
    L.stub = malloc(((size_t)L.nsyms + 1) * sizeof *L.stub);
    if (!L.sec_off || !L.symaddr || !L.got || !L.stub) {
        fail(&L, "out of memory");
        goto done;
    }
    for (int i = 0; i < L.nsyms; i++)
        L.got[i] = L.stub[i] = -1;
    if (plan_slots(&L) < 0 || layout(&L) < 0)
        goto done;
    void *m = mmap(NULL, L.map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        fail(&L, "cannot map %zu bytes for the code", L.map_size);
        goto done;
    }
    L.base = m;
    for (int i = 0; i < L.nsh; i++) {
        const Elf64_Shdr *s = &L.sh[i];
        if (is_alloc(s) && s->sh_type != SHT_NOBITS && s->sh_size)
            memcpy(L.base + L.sec_off[i], L.obj + s->sh_offset, s->sh_size);
    }
    if (resolve_symbols(&L) < 0)
        goto unmap;
    fill_slots(&L);
    if (relocate(&L) < 0)
        goto unmap;
    entry = find_symbol(&L, symbol);
    if (!entry) {
        fail(&L, "the object does not define %s", symbol);
        goto unmap;
    }
    if (mprotect(L.base, L.text_end, PROT_READ | PROT_EXEC) != 0 ||
        (L.ro_end > L.text_end && mprotect(L.base + L.text_end, L.ro_end - L.text_end, PROT_READ) != 0)) {
        fail(&L, "cannot protect the loaded code");
        entry = NULL;
        goto unmap;
    }
    perf_map(&L);
    goto done;
unmap:
    munmap(L.base, L.map_size);
done:
    free(L.sec_off);
    free(L.symaddr);
    free(L.got);
    free(L.stub);
    return entry;
}
