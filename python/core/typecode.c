/* typecode.c - sizes and alignments of typecodes (abi.h), dtype mapping. */
#include "core.h"

#include <math.h>
#include <string.h>

static int scalar_layout(char c, size_t *size, size_t *align)
{
    switch (c) {
    case '?': case 'b': case 'B': *size = 1; *align = 1; return 0;
    case 'h': case 'H': case 'e': *size = 2; *align = 2; return 0;
    case 'i': case 'I': case 'f': *size = 4; *align = 4; return 0;
    case 'l': case 'L': case 'd': *size = 8; *align = 8; return 0;
    case 'F': *size = 8; *align = 4; return 0;
    case 'D': *size = 16; *align = 8; return 0;
    default: return -1;
    }
}

/* ---- datetime64 / timedelta64 ---------------------------------------------- */

/* ORDER: NumPy's NPY_DATETIMEUNIT from NPY_FR_Y (0) to NPY_FR_GENERIC (14),
 * with the gap of the old business day (3); the characters are
 * compiler/types/types.c's dt_unit_codes ('x' ms, 'g' generic). */
static const char npy_unit_codes[] = "YMW?Dhmsxunpfag";
static const char *const npy_unit_names[] = {"Y", "M", "W", NULL, "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", NULL};

/* The NPY_DATETIMEUNIT of a unit character, -1 if none. */
static int npy_unit_of(char c)
{
    for (int i = 0; i <= NPY_FR_GENERIC; i++)
        if (i != 3 && npy_unit_codes[i] == c)
            return i;
    return -1;
}

static int dt_meta_code(const PyArray_DatetimeMetaData *m, char kind, char *out)
{
    if ((int)m->base < 0 || (int)m->base > NPY_FR_GENERIC || m->base == 3 || (m->num != 1 && m->base != NPY_FR_GENERIC))
        return 0;
    out[0] = kind;
    out[1] = npy_unit_codes[m->base];
    return 1;
}

int tc_dt_of_descr(PyArray_Descr *d, char *out)
{
    if ((d->type_num != NPY_DATETIME && d->type_num != NPY_TIMEDELTA) || !PyArray_ISNBO(d->byteorder))
        return 0;
    PyArray_DatetimeDTypeMetaData *md = (PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(d);
    return md ? dt_meta_code(&md->meta, d->type_num == NPY_DATETIME ? 'M' : 'm', out) : 0;
}

int tc_dt_of_scalar(PyObject *obj, char *out)
{
    if (PyArray_IsScalar(obj, Datetime))
        return dt_meta_code(&((PyDatetimeScalarObject *)obj)->obmeta, 'M', out);
    if (PyArray_IsScalar(obj, Timedelta))
        return dt_meta_code(&((PyTimedeltaScalarObject *)obj)->obmeta, 'm', out);
    return 0;
}

PyArray_Descr *tc_dt_descr(const char *p)
{
    int u = npy_unit_of(p[1]);
    if ((p[0] != 'M' && p[0] != 'm') || u < 0) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: bad datetime typecode");
        return NULL;
    }
    const char *name = npy_unit_names[u];
    PyObject *s = name ? PyUnicode_FromFormat("%c8[%s]", p[0], name) : PyUnicode_FromFormat("%c8", p[0]);
    PyArray_Descr *d = NULL;
    if (s && !PyArray_DescrConverter(s, &d))
        d = NULL;
    Py_XDECREF(s);
    return d;
}

const char *tc_elem_skip(const char *p)
{
    size_t s, a;
    if (*p == 'V')
        return rec_skip(p, NULL);
    if (*p == 'M' || *p == 'm')
        return npy_unit_of(p[1]) >= 0 ? p + 2 : NULL;
    return scalar_layout(*p, &s, &a) < 0 ? NULL : p + 1;
}

int tc_layout(const char **tc, size_t *size, size_t *align)
{
    const char *p = *tc;
    char c = *p++;
    switch (c) {
    case 'n':
        *size = 0;
        *align = 1;
        break;
    case 's': /* str: HjMemInfo * */
    case 'R': /* numpy.random.Generator: its bitgen_t * */
        *size = sizeof(void *);
        *align = sizeof(void *);
        break;
    case 'P': { /* FunctionType: 'P' <ret> '(' <numbers> ')', a C function's address */
        const char *q = strchr(p, ')');
        if (!q || p[1] != '(')
            return -1;
        p = q + 1;
        *size = sizeof(void *);
        *align = sizeof(void *);
        break;
    }
    case 'V': /* a record: a pointer to its bytes */
        if (!(p = rec_skip(p - 1, NULL)))
            return -1;
        *size = sizeof(void *);
        *align = sizeof(void *);
        break;
    case 't': {
        if (!(p = tc_elem_skip(p)))
            return -1;
        *size = 0;
        *align = 1;
        break;
    }
    case 'a':
    case 'r': {
        if (!(p = tc_elem_skip(p)))
            return -1;
        int nd = *p++ - '0';
        if (nd < 0 || nd > HJ_MAX_NDIM)
            return -1;
        char lay = *p++;
        if (lay != 'C' && lay != 'F' && lay != 'A')
            return -1;
        *size = HJ_ARRAY_SIZE(nd);
        *align = 8;
        break;
    }
    case 'y': /* bytes, bytearray: a 1-d array */
    case 'Y':
        *size = HJ_ARRAY_SIZE(1);
        *align = 8;
        break;
    case 'G':   /* generator object */
    case '#':   /* typed.List */
    case '%':   /* typed.Set */
    case '[': { /* list: HjMemInfo * */
        size_t s, a;
        if (tc_layout(&p, &s, &a) < 0)
            return -1;
        *size = sizeof(void *);
        *align = sizeof(void *);
        break;
    }
    case '&':   /* typed.Dict */
    case '{':   /* dict: HjMemInfo * */
    case '<': { /* set */
        size_t s, a;
        if (tc_layout(&p, &s, &a) < 0 || ((c == '{' || c == '&') && tc_layout(&p, &s, &a) < 0))
            return -1;
        *size = sizeof(void *);
        *align = sizeof(void *);
        break;
    }
    case 'o': { /* Optional: struct { uint8_t valid; T value; } */
        size_t s, a;
        if (tc_layout(&p, &s, &a) < 0)
            return -1;
        *size = (a + s + a - 1) / a * a;
        *align = a;
        break;
    }
    case 'M': /* datetime64, timedelta64: int64 (NaT INT64_MIN) */
    case 'm':
        if (!(p = tc_elem_skip(p - 1)))
            return -1;
        *size = 8;
        *align = 8;
        break;
    case 'J': /* a jitclass instance: HjMemInfo * */
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9')
            p++;
        *size = sizeof(void *);
        *align = sizeof(void *);
        break;
    case 'N': /* a named tuple: its header, then the tuple */
        p = nt_skip_header(p - 1, NULL);
        if (!p)
            return -1;
        return tc_layout(&p, size, align) < 0 ? -1 : (*tc = p, 0);
    case '(': {
        size_t off = 0, maxa = 1;
        while (*p != ')') {
            size_t s, a;
            if (*p == '\0' || tc_layout(&p, &s, &a) < 0)
                return -1;
            off = (off + a - 1) / a * a;
            off += s;
            if (a > maxa)
                maxa = a;
        }
        p++;
        *size = (off + maxa - 1) / maxa * maxa;
        *align = maxa;
        break;
    }
    default:
        if (scalar_layout(c, size, align) < 0)
            return -1;
    }
    *tc = p;
    return 0;
}

int tc_skip(const char **tc)
{
    size_t s, a;
    return tc_layout(tc, &s, &a);
}

int tc_npy_type(char c)
{
    switch (c) {
    case '?': return NPY_BOOL;
    case 'b': return NPY_INT8;
    case 'h': return NPY_INT16;
    case 'i': return NPY_INT32;
    case 'l': return NPY_INT64;
    case 'B': return NPY_UINT8;
    case 'H': return NPY_UINT16;
    case 'I': return NPY_UINT32;
    case 'L': return NPY_UINT64;
    case 'e': return NPY_HALF;
    case 'f': return NPY_FLOAT32;
    case 'd': return NPY_FLOAT64;
    case 'F': return NPY_COMPLEX64;
    case 'D': return NPY_COMPLEX128;
    default: return -1;
    }
}

/* Integers are named by size so that long/longlong (and Windows' 32-bit
 * long) map to the right width. */
static char int_code(int size, int is_signed)
{
    switch (size) {
    case 1: return is_signed ? 'b' : 'B';
    case 2: return is_signed ? 'h' : 'H';
    case 4: return is_signed ? 'i' : 'I';
    case 8: return is_signed ? 'l' : 'L';
    default: return 0;
    }
}

char tc_of_descr(PyArray_Descr *d)
{
    if (!PyArray_ISNBO(d->byteorder))
        return 0;
    int tn = d->type_num;
    switch (tn) {
    case NPY_BOOL: return '?';
    case NPY_BYTE: return int_code(sizeof(signed char), 1);
    case NPY_UBYTE: return int_code(sizeof(unsigned char), 0);
    case NPY_SHORT: return int_code(sizeof(short), 1);
    case NPY_USHORT: return int_code(sizeof(short), 0);
    case NPY_INT: return int_code(sizeof(int), 1);
    case NPY_UINT: return int_code(sizeof(int), 0);
    case NPY_LONG: return int_code(sizeof(long), 1);
    case NPY_ULONG: return int_code(sizeof(long), 0);
    case NPY_LONGLONG: return int_code(sizeof(long long), 1);
    case NPY_ULONGLONG: return int_code(sizeof(long long), 0);
    case NPY_HALF: return 'e';
    case NPY_FLOAT: return 'f';
    case NPY_DOUBLE: return 'd';
    case NPY_CFLOAT: return 'F';
    case NPY_CDOUBLE: return 'D';
    default: return 0;
    }
}

double tc_half_to_double(uint16_t h)
{
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0)
        return sign * ldexp(m, -24);
    if (e == 31)
        return m ? (double)NAN : sign * (double)INFINITY;
    return sign * ldexp(m | 0x400, e - 25);
}

uint16_t tc_double_to_half(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
    int exp = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & ((1ull << 52) - 1);
    if (exp == 0x7ff)
        return mant ? (uint16_t)(sign | 0x7e00 | (mant >> 42)) : (uint16_t)(sign | 0x7c00);
    if (exp == 0)
        return sign; /* zero or a double subnormal: far below half's smallest */
    int e = exp - 1023 + 15; /* the half exponent field, if normal */
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    uint64_t m = mant | (1ull << 52);
    int shift = e >= 1 ? 42 : 42 + (1 - e); /* keep 11 bits (normal) or fewer (subnormal) */
    if (shift >= 64)
        return sign;
    uint64_t q = m >> shift, rem = m & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
        q++;
    uint32_t r = e >= 1 ? ((uint32_t)(e - 1) << 10) + (uint32_t)q : (uint32_t)q; /* carries into the exponent */
    if (r >= 0x7c00)
        return (uint16_t)(sign | 0x7c00);
    return (uint16_t)(sign | r);
}
