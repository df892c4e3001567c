/* intmath.c - integer functions of Python's builtins that compiled code
 * calls (compiler/lower/lower_builtin.c). */
#include <stdbool.h>

#include "hpcjit/runtime.h"

/* x^-1 modulo m (0 < m), by the extended Euclidean algorithm; false when
 * gcd(x, m) != 1. */
static bool mod_inverse(uint64_t x, uint64_t m, uint64_t *inv) {
    __int128 r0 = (__int128)m, r1 = (__int128)x, t0 = 0, t1 = 1;
    while (r1 != 0) {
        __int128 q = r0 / r1, r = r0 - q * r1, t = t0 - q * t1;
        r0 = r1, r1 = r;
        t0 = t1, t1 = t;
    }
    if (r0 != 1)
        return false;
    if (t0 < 0)
        t0 += (__int128)m;
    *inv = (uint64_t)t0;
    return true;
}

int32_t rt_int_powmod(int64_t base, int64_t exp, int64_t mod, int64_t *out) {
    if (mod == 0) {
        rt_raise("ValueError", "pow() 3rd argument cannot be 0");
        return -1;
    }
    uint64_t m = mod < 0 ? (uint64_t)0 - (uint64_t)mod : (uint64_t)mod;
    /* base reduced into [0, m), as Python's % with a positive modulus */
    __int128 b128 = (__int128)base % (__int128)m;
    uint64_t b = (uint64_t)(b128 < 0 ? b128 + (__int128)m : b128);
    uint64_t e = exp < 0 ? (uint64_t)0 - (uint64_t)exp : (uint64_t)exp;
    if (exp < 0 && !mod_inverse(b, m, &b)) {
        rt_raise("ValueError", "base is not invertible for the given modulus");
        return -1;
    }
    unsigned __int128 r = m == 1 ? 0 : 1, p = b;
    while (e) {
        if (e & 1)
            r = r * p % m;
        p = p * p % m;
        e >>= 1;
    }
    /* Python's result has the modulus's sign: in (mod, 0] for mod < 0 */
    int64_t res = (int64_t)(uint64_t)r;
    if (mod < 0 && r != 0)
        res = (int64_t)((uint64_t)r - m);
    *out = res;
    return 0;
}
