"""np.einsum(subscripts, *operands) in compiled code (Numba 0.68 has none):
`subscripts` a string constant, explicit ("ij,jk->ik") or implicit ("ij,jk":
the letters that appear once, in alphabetical order), up to six operands,
arrays or numbers; a letter repeated in one operand takes its diagonal
("ii->i", "ii"); dimensions of size 1 broadcast, as NumPy's.  The result is
NumPy's dtype (np.result_type of the operands) and, with no output letters,
a number.  The loops are written out for the subscripts, the innermost
along the letter that is the last axis of the most arrays; no ellipsis ("..."), no optimize=, no
out=.  A located TypingError says which."""
import numpy as np

from . import errors
from . import types as _types
from ._npextra import _exec
from .extending import overload
from .numpy_support import as_dtype

_MAX_OPERANDS = 6


def _parse(sub, nops):
    if not isinstance(sub, str):
        raise errors.TypingError("needs its subscripts as a string constant")
    s = sub.replace(" ", "")
    if "." in s:
        raise errors.TypingError("'...' in the subscripts is not supported by hpcjit")
    if "->" in s:
        lhs, out = s.split("->", 1)
        implicit = False
    else:
        lhs, out, implicit = s, None, True
    ins = lhs.split(",")
    for t in ins + ([out] if out is not None else []):
        if not all(c.isalpha() for c in t):
            raise errors.TypingError(f"invalid subscripts {sub!r}")
    if len(ins) != nops:
        raise errors.TypingError(f"the subscripts {sub!r} name {len(ins)} operand(s), "
                                 f"{nops} given")
    if implicit:
        counts = {}
        for t in ins:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    else:
        seen = set("".join(ins))
        for c in out:
            if c not in seen:
                raise errors.TypingError(f"output subscript {c!r} does not appear in the inputs")
        if len(set(out)) != len(out):
            raise errors.TypingError(f"output subscript repeated in {sub!r}")
    return ins, out


def _source(ins, out, ndims, dtype_name):
    names = [f"a{k}" for k in range(len(ins))]
    letters = []
    for t in ins:
        for c in t:
            if c not in letters:
                letters.append(c)
    summed = [c for c in letters if c not in out]
    body = [f"def impl(subscripts, {', '.join(names)}):"]
    arrays = [k for k, nd in enumerate(ndims) if nd > 0]
    # the size of each letter: the largest of its axes; each axis that size or 1
    for c in letters:
        axes = [(k, ax) for k in arrays for ax, cc in enumerate(ins[k]) if cc == c]
        body.append(f"    n_{c} = 1")
        for k, ax in axes:
            body.append(f"    if a{k}.shape[{ax}] != 1:")
            body.append(f"        n_{c} = a{k}.shape[{ax}]")
        for k, ax in axes:
            body.append(f"    if a{k}.shape[{ax}] != 1 and a{k}.shape[{ax}] != n_{c}:")
            body.append("        raise ValueError('operands could not be broadcast together with remapped "
                        "shapes')")
            body.append(f"    m_{k}_{ax} = 0 if a{k}.shape[{ax}] == 1 else 1")
    # the innermost loop runs along the letter that is the last axis of the
    # most arrays (the output's too), so that it walks memory in order:
    # "ij,jk->ik" accumulates rows of out (k innermost), "bij,bj->bi" sums
    # along j.  The additions into each output item stay in the order of
    # the summed letters either way.
    lasts = [t[-1] for k, t in enumerate(ins) if ndims[k] > 0 and t] + ([out[-1]] if out else [])
    inner = max(letters, key=lambda c: (lasts.count(c), c not in out)) if letters else None
    if out:
        body.append(f"    out = np.zeros(({', '.join(f'n_{c}' for c in out)},), np.{dtype_name})")
    else:
        body.append(f"    acc = np.{dtype_name}(0)")
    mults = [f"m_{k}_{ax}" for k in arrays for ax in range(len(ins[k]))]
    if mults:  # no size-1 axis broadcast: plain indices, which LLVM can vectorize
        body.append(f"    if {' and '.join(f'{m} == 1' for m in mults)}:")
        body += _nest(ins, out, ndims, summed, inner, dtype_name, "        ", False)
        body.append("    else:")
        body += _nest(ins, out, ndims, summed, inner, dtype_name, "        ", True)
    else:
        body += _nest(ins, out, ndims, summed, inner, dtype_name, "    ", False)
    body.append("    return out" if out else f"    return np.{dtype_name}(acc)")
    return "\n".join(body) + "\n"


def _nest(ins, out, ndims, summed, inner, dtype_name, ind, broadcast):
    """The loop nest at indentation `ind`; `broadcast`: each index times its
    axis's m (0 for a size-1 axis)."""
    term = []
    for k, t in enumerate(ins):
        if ndims[k] == 0:
            term.append(f"a{k}")
        elif broadcast:
            term.append(f"a{k}[{', '.join(f'{c} * m_{k}_{ax}' for ax, c in enumerate(t))}]")
        else:
            term.append(f"a{k}[{', '.join(t)}]")
    product = " * ".join(term)
    lines = []
    if not out:  # one sum (acc, made by the caller); no loop at all for numbers alone
        for c in [c for c in summed if c != inner] + ([inner] if inner else []):
            lines.append(f"{ind}for {c} in range(n_{c}):")
            ind += "    "
        lines.append(f"{ind}acc += {product}")
    elif inner in out:  # accumulate into out, the inner output letter innermost
        for c in [c for c in out if c != inner] + summed + [inner]:
            lines.append(f"{ind}for {c} in range(n_{c}):")
            ind += "    "
        lines.append(f"{ind}out[{', '.join(out)}] += {product}")
    else:  # a sum per output item, the chosen summed letter innermost
        for c in out:
            lines.append(f"{ind}for {c} in range(n_{c}):")
            ind += "    "
        lines.append(f"{ind}acc = np.{dtype_name}(0)")
        deep = ind
        for c in [c for c in summed if c != inner] + [inner]:
            lines.append(f"{deep}for {c} in range(n_{c}):")
            deep += "    "
        lines.append(f"{deep}acc += {product}")
        lines.append(f"{ind}out[{', '.join(out)}] = acc")
    return lines


def _operand(t, k):
    if isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number) and \
            not isinstance(t.dtype, _types.Boolean):
        return t.ndim, as_dtype(t.dtype)
    base = _types.unliteral(t) if isinstance(t, _types.Literal) else t
    if isinstance(base, _types.Number) and not isinstance(base, _types.Boolean):
        return 0, as_dtype(base)
    raise errors.TypingError(f"operand {k} must be an array of numbers or a number, not {t}")


def _einsum_impl(subscripts, ops):
    sub = getattr(subscripts, "literal_value", None)
    ins, out = _parse(sub, len(ops))
    ndims, dts = [], []
    for k, (t, spec) in enumerate(zip(ops, ins)):
        nd, dt = _operand(t, k)
        if nd != len(spec):
            raise errors.TypingError(f"operand {k} has {nd} dimension(s), its subscripts "
                                     f"{spec!r} name {len(spec)}")
        ndims.append(nd)
        dts.append(dt)
    rdt = np.result_type(*dts)
    name = {"bool": "bool_"}.get(rdt.name, rdt.name)
    return _exec(_source(ins, out, ndims, name), {}, "einsum")


@overload(np.einsum, prefer_literal=True)
def _ol_einsum(subscripts, a0, a1=None, a2=None, a3=None, a4=None, a5=None):
    ops = [a0, a1, a2, a3, a4, a5]
    while ops and (ops[-1] is None or isinstance(ops[-1], (_types.NoneType, _types.Omitted))):
        ops.pop()
    if any(o is None or isinstance(o, (_types.NoneType, _types.Omitted)) for o in ops):
        raise errors.TypingError("operands cannot be None")
    impl = _einsum_impl(subscripts, ops)
    n = len(ops)
    if n == _MAX_OPERANDS:
        return impl
    # the implementation takes the call's arguments: the omitted ones too
    params = ", ".join(f"a{k}" for k in range(n))
    pad = ", ".join(f"a{k}=None" for k in range(n, _MAX_OPERANDS))
    wrap = (f"def impl(subscripts, {params}, {pad}):\n"
            f"    return _inner(subscripts, {params})\n")
    from . import njit
    return _exec(wrap, {"_inner": njit(impl)}, "einsum_call")
