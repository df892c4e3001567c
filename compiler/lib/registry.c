/* registry.c - names of the builtins (lib/builtins.def) and the feature
 * that owns each (lib/registry.h). */
#include "registry.h"

#include <string.h>

static const char *const names[] = {
#define BUILTIN(id, name) name,
#include "builtins.def"
#undef BUILTIN
};

static const struct {
    const char *name;
    BuiltinId id;
} aliases[] = {
#define BUILTIN(id, name)
#define BUILTIN_ALIAS(name, id) {name, id},
#include "builtins.def"
#undef BUILTIN
#undef BUILTIN_ALIAS
};

/* lib_<feature>_ops, defined in each feature's folder; the core's own
 * entries point at an empty one. */
#define LIB_OPS_(f) lib_##f##_ops
#define LIB_OPS(f) LIB_OPS_(f)
#define BUILTIN(id, name) extern const LibOps LIB_OPS(LIB_FEATURE);
#include "builtins.def"
#undef BUILTIN

const LibOps lib_core_ops = {.name = "core"};

static const LibOps *const owner[] = {
#define BUILTIN(id, name) [id] = &LIB_OPS(LIB_FEATURE),
#include "builtins.def"
#undef BUILTIN
};

/* Lookup order for attributes: NumPy's array methods first. */
static const LibOps *const features[] = {&lib_np_ops,   &lib_nparray_ops, &lib_search_ops,   &lib_random_ops,
                                         &lib_linalg_ops, &lib_mpi_ops,   &lib_list_ops,     &lib_dict_ops,
                                         &lib_str_ops,  &lib_jitclass_ops, &lib_cuda_ops};

const char *builtin_name(BuiltinId id) {
    return (id >= 0 && id < BI_COUNT) ? names[id] : "?";
}

int builtin_lookup(const char *qualname) {
    for (int i = 0; i < BI_COUNT; i++)
        if (strcmp(names[i], qualname) == 0)
            return i;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].name, qualname) == 0)
            return (int)aliases[i].id;
    return -1;
}

const LibOps *lib_ops(BuiltinId id) {
    if (id < 0 || id >= BI_COUNT || owner[id] == &lib_core_ops)
        return NULL;
    return owner[id];
}

int lib_feature_count(void) { return (int)(sizeof features / sizeof features[0]); }

const LibOps *lib_feature(int i) { return features[i]; }

const LibOps *lib_type_owner(const Type *t) {
    if (!t)
        return NULL;
    if (t->kind == TY_OPTIONAL)
        t = t->base;
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (features[i]->owns_type && features[i]->owns_type(t))
            return features[i];
    return NULL;
}

const LibOps *lib_type_owner2(const Type *a, const Type *b) {
    const LibOps *o = lib_type_owner(a);
    return o ? o : lib_type_owner(b);
}

int lib_call_builtin(const Node *n) {
    if (!n || n->kind != N_CALL || n->call_kind != CALL_BUILTIN)
        return -1;
    return (int)n->builtin;
}
