/* builtins.c - names of the builtin functions (table in builtins.def). */
#include "ast.h"

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
