/* memory.c - reference-counted array memory (rt_ memory API). */
#include "hpcjit/runtime.h"
