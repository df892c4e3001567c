"""Inner functions and lambdas of a compiled function (issue 11).

    @njit
    def outer(a, k):
        def scale(x):            # an inner function reading k
            return x * k
        f = lambda x: x + 1      # a lambda bound to a name
        return scale(f(a))

Before the source reaches the compiler, each inner def (and each lambda
bound to a name) of the function is lifted into a function of its own whose
free variables come first as extra parameters, and each call `scale(y)` in
the function becomes `scale(k, y)`: the inner function sees the values the
variables have at the call, which is what a closure that is only called
reads.  A free variable holding an empty list, dict or set that the inner
function fills (`acc.append(x)`) gets its items from that body: the
compiler's call typing learns them (infer_call.c refine_args).  The edits
keep every other line and column of the user's text, so diagnostics still
point into it.  An inner function or lambda that reads the
function's variables is a value only as an argument of a call (`sorted(l,
key=lambda t: t[k])`, `apply(g, a)`): `_hj_closure(g, k)` there, the
compiler's closure over the values they have at that call (CPython's late
binding: each call makes its own).  Refused with a located error: such a
function used otherwise (returned, stored, bound to another name).  An
inner def assigning variables of the outer function (`nonlocal total`) also
returns their new values (`return (x), total`), and each call of it, a
statement `add(i)` or an assignment `x = add(i)`, assigns them back
(`_hj_nl0, total = add(total, i)`).  A def nested in an
inner function is lifted out of that one when it is compiled, in turn.

A closure factory (issue 12), an inner function returning an inner def
or lambda of its own (the product) that reads its variables:

    def add(k):                  # def add(k):
        return lambda x: x + k   #     return (k,)
    f = add(n)                   # f = add(n)
    r = f(2) + add(1)(3)         # r = _hj_add_lambda(f, 2) + _hj_add_lambda(add(1), 3)

The product is lifted too, as `_hj_<factory>_<product>(_hj_env, <the
variables of this function it reads>, <its own parameters>)`, its first
statement `k, = _hj_env`.  The factory returns the tuple of the values of
its variables that the product reads (once the factory has returned,
nothing else can assign them), so `f = add(n)` binds f to that
environment, and each call of f passes it.  Variables of this function
the product reads are passed at each call, as they then are (CPython's
cells; Numba freezes them when the closure is made).  Another inner
function may call the factory or f too: it gets f like any variable, the
product as a sibling and the variables the product reads as extra
parameters, and its text is rewritten the same way.  Passed as an
argument of a call, the product is the closure over its environment and
the variables it reads (`_hj_closure(_hj_add_lambda, f, base)`).  A
product assigning the factory's variables (`nonlocal n`) finds each in a
one-item list of the environment (`_hj_cell_n[0]`); defs of the factory
it calls are lifted beside it over the same environment.  A variable
bound to a product and to other values, or read by a def nested two
deep, holds the product's closure.  Refused with a located error: the
product returned or stored, a factory returning different functions on
different paths, a variable bound to a product reading this function's
variables and to another value (or read by a def nested two deep)."""
import ast
import types as _pytypes

from . import _srctext, errors


class Lifted:
    """A lifted inner function, as _Gather sees a dispatcher."""

    def __init__(self, py_func, src, targetoptions, extra):
        self.py_func = py_func
        self.targetoptions = targetoptions
        self.extra = extra  # the free variables, passed first
        self.siblings = {}  # name -> Lifted: the inner functions it calls
        self.__dict__["_hj_source"] = src


def _nested_codes(code):
    return {c.co_name: c for c in code.co_consts if isinstance(c, _pytypes.CodeType)}


def _fail(src, node, what):
    """An UnsupportedError at the node: file:line:col, the line, a caret
    (the compiler's format)."""
    import linecache

    line = src.first_line + node.lineno - 1
    col = src.col_offset + node.col_offset + 1
    text = linecache.getline(src.filename, line).rstrip("\n")
    msg = f"{src.filename}:{line}:{col}: error: {what} is not supported by hpcjit"
    if text:
        msg += f"\n    {text}\n    {' ' * (col - 1)}^"
    return errors.UnsupportedError(msg)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp, ast.ClassDef)


def _own_scope(fdef):
    """The nodes of fdef's own scope (not inside a nested def, lambda or
    comprehension, whose lambdas are constants of their own code objects),
    the scope nodes themselves included, in source order."""
    out, todo = [], list(fdef.body) if isinstance(fdef.body, list) else [fdef.body]
    while todo:
        n = todo.pop()
        out.append(n)
        if not isinstance(n, _SCOPES):
            todo.extend(ast.iter_child_nodes(n))
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            todo.append(n.generators[0].iter)  # evaluated in the enclosing scope
    return sorted((n for n in out if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))


def inner_kind(inner, node):
    return next((k for n, k in inner.values() if n is node), None)


def _apply(lines, edits):
    """Insert each (column, text) of edits[line index] into lines, or put
    text in place of the `width` characters there for a (column, text,
    width), the rightmost first (the columns are the original line's)."""
    for li, items in edits.items():
        text = lines[li]
        for col, ins, *width in sorted(items, key=lambda t: -t[0]):
            text = text[:col] + ins + text[col + (width[0] if width else 0):]
        lines[li] = text


def _parenthesized(lines, node):
    return lines[node.lineno - 1][node.col_offset:node.col_offset + 1] == "("


def _nonlocals(src, code, lifted):
    """name -> [variables it assigns with `nonlocal`] for the inner defs.
    Only variables of the function being lifted (not of one further out)."""
    out = {}
    mine = set(code.co_varnames) | set(code.co_cellvars)
    for name, node, kind, c, extra, siblings in lifted:
        if kind != "def":
            continue
        names = []
        for n in _own_scope(node):
            if isinstance(n, ast.Nonlocal):
                for v in n.names:
                    if v not in mine:
                        raise _fail(src, n, f"'nonlocal {v}' naming a variable of a function further "
                                    f"out than the enclosing one")
                    if v not in names:
                        names.append(v)
        if names:
            if node.body[0].lineno == node.lineno:
                raise _fail(src, node, f"a one-line def assigning {', '.join(names)} (nonlocal)")
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_scope(node)):
                raise _fail(src, node, "a generator assigning variables of its enclosing function (nonlocal)")
            out[name] = names
    return out


def _return_nonlocals(src, node, tl, names):
    """The lifted text `tl` of def `node` (tl[i] is source line node.lineno
    + i): its `nonlocal` statements become `pass`, each `return x` returns
    `(x), v1, v2...` and the body's end returns `None, v1, v2...`."""
    back = ", ".join(names)
    edits = {}
    for n in _own_scope(node):
        li = n.lineno - node.lineno
        if isinstance(n, ast.Nonlocal):
            if n.end_lineno != n.lineno:
                raise _fail(src, n, "a nonlocal statement over several lines")
            line = tl[li]
            tl[li] = line[:n.col_offset] + "pass" + " " * (n.end_col_offset - n.col_offset - 4) + \
                line[n.end_col_offset:]
        elif isinstance(n, ast.Return):
            if n.value is None:
                edits.setdefault(li, []).append((n.col_offset + len("return"), f" None, {back}"))
            else:
                edits.setdefault(li, []).append((n.value.col_offset, "("))
                edits.setdefault(n.value.end_lineno - node.lineno, []).append(
                    (n.value.end_col_offset, f"), {back}"))
    _apply(tl, edits)
    if not isinstance(node.body[-1], ast.Return):
        indent = node.body[0].col_offset
        if not tl[-1].endswith("\n"):
            tl[-1] += "\n"
        tl.append(" " * indent + f"return None, {back}\n")


class _Factory:
    """An inner function of the function being lifted that returns an
    inner def or lambda of its own (its product) reading its variables."""

    def __init__(self, name, product, pnode, pkind, pcode, frozen, values, drop, cells=(), helpers=()):
        self.cells = cells      # the frozen variables the product assigns (nonlocal): one-item lists
        self.helpers = helpers  # (name, FunctionDef, code): defs of the factory the product calls
        self.name = name
        self.product = product  # the product's lifted name
        self.pnode = pnode      # its FunctionDef or Lambda
        self.pkind = pkind      # "pdef" or "plambda"
        self.pcode = pcode
        self.frozen = frozen    # the factory's variables it reads: the tuple returned
        self.values = values    # the factory's returned expressions (replaced by that tuple)
        self.drop = drop        # a product lambda's code: gone from the factory's text

    def env_text(self):
        vals = [f"[{v}]" if v in self.cells else v for v in self.frozen]
        if len(vals) == 1:
            return f"({vals[0]},)"
        return f"({', '.join(vals)})"

    def unpack_text(self):
        """The product's first statement, on the line above its body."""
        names = [_cell(v) if v in self.cells else v for v in self.frozen]
        return f"{', '.join(names)}{',' if len(names) == 1 else ''} = _hj_env\n"


def _cell(v):
    """The name of the one-item list holding the factory's variable v in
    a product that assigns it (nonlocal)."""
    return f"_hj_cell_{v}"


def _product_cells(src, name, pnode, cellvars):
    """The factory's variables the product def pnode assigns (`nonlocal
    n`): each lives in a one-item list of the environment, shared by the
    calls of one closure (a counter), each use `n` in the product's text
    becoming `_hj_cell_n[0]`.  Refused with a located error: nonlocal of
    a variable further out, in a one-line def or read by a function nested
    in the product."""
    cells = []
    for n in _own_scope(pnode):
        if isinstance(n, ast.Nonlocal):
            for v in n.names:
                if v not in cellvars:
                    raise _fail(src, n, f"a function returned by the closure factory '{name}' assigning '{v}' "
                                f"(nonlocal) of a function further out than '{name}' (assign a variable of "
                                f"'{name}' instead)")
                if v not in cells:
                    cells.append(v)
            if n.end_lineno != n.lineno:
                raise _fail(src, n, "a nonlocal statement over several lines")
    if not cells:
        return cells
    if pnode.body[0].lineno == pnode.lineno:
        raise _fail(src, pnode, f"a one-line def returned by the closure factory '{name}' assigning "
                    f"{', '.join(cells)} (nonlocal) (write its body on the lines below)")
    for n in _own_scope(pnode):
        if isinstance(n, _SCOPES) and n is not pnode:
            for m in ast.walk(n):
                if isinstance(m, ast.Name) and m.id in cells:
                    raise _fail(src, m, f"reading '{m.id}', which the function returned by the closure factory "
                                f"'{name}' assigns (nonlocal), in a function nested in that one")
        if isinstance(n, ast.NamedExpr) and n.target.id in cells:
            raise _fail(src, n, f"an assignment expression to '{n.target.id}' (nonlocal) in the function "
                        f"returned by the closure factory '{name}'")
    return cells


def _cell_uses(node, cells, tl):
    """The lifted text tl of product def `node` (tl[i] is line
    node.lineno + i): its `nonlocal` statements become `pass`, each use of
    a cell variable v `_hj_cell_v[0]`."""
    edits = {}
    for n in _own_scope(node):
        li = n.lineno - node.lineno
        if isinstance(n, ast.Nonlocal):
            edits.setdefault(li, []).append((n.col_offset, "pass", n.end_col_offset - n.col_offset))
        elif isinstance(n, ast.Name) and n.id in cells:
            edits.setdefault(li, []).append((n.col_offset, _cell(n.id) + "[0]", len(n.id)))
    _apply(tl, edits)


def _product_of(value, defs, named):
    """The node of the inner function a returned expression is (a lambda,
    or the name of a def or of a lambda bound to a name), or None."""
    if isinstance(value, ast.Lambda):
        return value
    if isinstance(value, ast.Name):
        if value.id in defs:
            return defs[value.id]
        if value.id in named:
            return named[value.id]
    return None


def _factory(src, name, node, kind, c, inner, outer_locals):
    """A _Factory when inner function `name` returns a function of its own
    that reads its variables, else None (an inner function returning a
    function that reads nothing stays a function value)."""
    scope = _own_scope(node if kind == "def" else node.value)
    defs = {n.name: n for n in scope if isinstance(n, ast.FunctionDef)}
    named = {n.targets[0].id: n.value for n in scope if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Lambda)}
    if kind == "def":
        values = [n.value for n in scope if isinstance(n, ast.Return)]
        ends = isinstance(node.body[-1], ast.Return)
    else:
        values, ends = [node.value.body], True
    products = [_product_of(v, defs, named) for v in values]
    if not any(products):
        return None
    # the code objects: a def's by name, the lambdas' in order
    lam_nodes = sorted((n for n in scope if isinstance(n, ast.Lambda)), key=lambda n: (n.lineno, n.col_offset))
    lambdas = [x for x in c.co_consts if isinstance(x, _pytypes.CodeType) and x.co_name == "<lambda>"]
    nested = _nested_codes(c)
    codes = []
    for p in products:
        if p is None:
            codes.append(None)
        elif isinstance(p, ast.Lambda):
            if len(lam_nodes) != len(lambdas):
                raise _fail(src, p, f"a function returned by the closure factory '{name}' among lambdas over "
                            "several lines")
            codes.append(lambdas[lam_nodes.index(p)])
        else:
            codes.append(nested.get(p.name))
    if not any(pc is not None and pc.co_freevars for pc in codes):
        return None
    pnode, pcode = products[0], codes[0]
    if any(p is not pnode for p in products) or pcode is None:
        raise _fail(src, node, f"a closure factory '{name}' returning different functions (or a function "
                    "and another value) on different paths (return one function that chooses inside)")
    if not ends:
        raise _fail(src, node, f"a closure factory '{name}' that can end without returning its function")
    for n in scope:
        if isinstance(n, ast.Nonlocal):
            raise _fail(src, n, f"a closure factory '{name}' assigning {', '.join(n.names)} of its "
                        "enclosing function (nonlocal)")
    pname = getattr(pnode, "name", None) or next((k for k, v in named.items() if v is pnode), "lambda")
    cells = _product_cells(src, name, pnode, set(c.co_cellvars)) if isinstance(pnode, ast.FunctionDef) else []
    mine = set(defs) | set(named)
    frozen = []
    helpers = []
    nested = _nested_codes(c)

    def reads(fcode, fnode, fname):
        for v in fcode.co_freevars:
            if v in c.co_cellvars and v not in mine:
                if v not in frozen:
                    frozen.append(v)
            elif v not in mine and v not in inner and v not in outer_locals:
                raise _fail(src, fnode, f"the inner function '{fname}' reading '{v}' of an enclosing function")

    reads(pcode, pnode, pname)
    for v in pcode.co_freevars:
        if v not in mine:
            continue
        # a def of the factory the product calls: lifted beside it, over
        # the same environment (its first parameter), its calls there
        # passing it (`_hj_add_h(_hj_env, y)`)
        hnode, hcode = defs.get(v), nested.get(v)
        if v == pname or hnode is None or hcode is None:
            raise _fail(src, pnode, f"a function returned by the closure factory '{name}' calling '{v}', "
                        f"{'itself' if v == pname else 'a lambda bound to a name in ' + repr(name)} (write it as "
                        f"a def of '{name}' beside the one returned)")
        for w in hcode.co_freevars:
            if w in mine:
                raise _fail(src, hnode, f"'{v}', called by the function returned by the closure factory "
                            f"'{name}', calling '{w}', another inner function of '{name}'")
        if any(isinstance(n, ast.Nonlocal) for n in _own_scope(hnode)):
            raise _fail(src, hnode, f"'{v}', called by the function returned by the closure factory '{name}', "
                        "assigning variables (nonlocal)")
        shared = [w for w in cells if w in hcode.co_freevars]
        if hnode.body[0].lineno == hnode.lineno and shared:
            raise _fail(src, hnode, f"a one-line def '{v}' reading {', '.join(shared)}, which the function "
                        f"returned by the closure factory '{name}' assigns (nonlocal) (write its body on the "
                        "lines below)")
        if any(isinstance(n, _SCOPES) for n in _own_scope(hnode)):
            raise _fail(src, hnode, f"'{v}', called by the function returned by the closure factory '{name}', "
                        "with functions or comprehensions of its own")
        reads(hcode, hnode, v)
        helpers.append((v, hnode, hcode))
    drop = pcode if isinstance(pnode, ast.Lambda) and pnode not in named.values() else None
    return _Factory(name, f"_hj_{name}_{pname}", pnode, "pdef" if isinstance(pnode, ast.FunctionDef)
                    else "plambda", pcode, frozen, values, drop, cells, helpers)


def _outer_nodes(fdef):
    """The nodes of fdef's body outside its inner defs and lambdas
    (comprehensions included: they run in the function)."""
    out, todo = [], list(fdef.body)
    while todo:
        n = todo.pop()
        out.append(n)
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return out


class _Loose(Exception):
    """A variable bound to a product and to something else (_bindings)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


def _bind(src, code, fdef, facs, bound, deep=frozenset()):
    """_bindings, with each variable bound both to a product and to another
    value (or to the products of two factories) loose: such a variable
    holds the product's closure (`f = _hj_closure(_hj_add_lambda, add(n))`,
    a value of the compiler's, typed per assignment) and its calls are
    the compiler's.  So is each variable in `deep`, read by a def nested
    in an inner function (which is lifted when that one is compiled)."""
    loose = set(deep)
    while True:
        try:
            return _bindings(src, code, fdef, facs, bound, loose)
        except _Loose as e:
            loose.add(e.name)


def _bindings(src, code, fdef, facs, bound, loose=frozenset()):
    """(nodes, parents, bound, sites, loose_sites) of fdef's own text: its
    nodes outside inner functions in source order and their parents, each
    variable bound to a factory's product (`f = add(n)`, `g = f`; `bound`
    holds those bound further out) -> that factory, the targets binding
    it, and the assignments of a product to a `loose` variable -> its
    factory.  Raises _Loose for a variable that is bound to a product and
    to something else."""
    nodes = sorted((n for n in _outer_nodes(fdef) if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))
    parents = {}
    for n in nodes:
        for child in ast.iter_child_nodes(n):
            parents[id(child)] = n
    bound = dict(bound)
    sites = {}

    def binding(value):
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in facs:
            return value.func.id
        if isinstance(value, ast.Name):
            return bound.get(value.id)
        return None

    changed = True
    while changed:  # `g = f` after `f = add(n)`: g too
        changed = False
        for n in nodes:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                v, fac = n.targets[0].id, binding(n.value)
                if v in loose or fac is None or id(n.targets[0]) in sites.get(v, ()):
                    continue
                if bound.setdefault(v, fac) != fac:
                    raise _Loose(v)  # the functions of two factories
                sites.setdefault(v, set()).add(id(n.targets[0]))
                changed = True
    params = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    for n in nodes:
        if not (isinstance(n, ast.Name) and n.id in bound) or isinstance(n.ctx, ast.Load) or n.id not in sites:
            continue
        if id(n) not in sites[n.id] or n.id in params:
            raise _Loose(n.id)
    loose_sites = {}
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id in loose and binding(n.value) is not None:
            loose_sites[id(n)] = binding(n.value)
    return nodes, parents, bound, sites, loose_sites


def _factory_calls(src, code, fdef, facs, bound, extras, out_lines, edits, shift=0, nested=(), deep=frozenset()):
    """The edits of fdef's own text (out_lines; its columns are `shift`
    more than fdef's) for the closure factories it calls, `facs`, and the
    variables further out bound to their products, `bound`: `f = add(n)`
    binds f to the environment tuple add returns (and `g = f` g), and each
    call `f(y)` (and `add(n)(y)`) becomes `_hj_add_lambda(f, <its
    variables of the outermost function, read at the call>, y)`.  Anything
    else done with a product (returned, passed, stored, called from a
    function nested in fdef, whose code objects are `nested`) is refused."""
    nodes, parents, bound, sites, loose_sites = _bind(src, code, fdef, facs, bound, deep)
    # a function nested in fdef sees neither the products nor the
    # factories as functions (it is lifted when fdef is compiled)
    mine = {id(n) for n in nodes}
    for c in nested:
        for v in c.co_freevars:
            if v in bound or v in facs:
                use = next((n for n in ast.walk(fdef) if isinstance(n, ast.Name) and n.id == v
                            and id(n) not in mine), fdef)
                what = f"the closure factory '{v}'" if v in facs else \
                    f"'{v}', the function returned by the closure factory '{bound[v]}',"
                raise _fail(src, use, f"calling {what} from a function nested in the one that calls it (pass "
                            f"it to that function as an argument: `g(x, {v if v in bound else v + '(...)'})`)")

    def binds(stmt):
        """Whether stmt is one of the assignments `f = add(n)`, `g = f`."""
        t = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
        return isinstance(t, ast.Name) and id(t) in sites.get(t.id, ())

    def call_product(call, fac, at):
        """`at`: the node before whose text `_hj_...(` goes."""
        f = facs[fac]
        live = extras[f.product][1:]  # after _hj_env
        edits.setdefault(at.lineno - 1, []).append((at.col_offset + shift, f"{f.product}("))
        li = call.func.end_lineno - 1
        j = out_lines[li].index("(", call.func.end_col_offset + shift)
        rest = ", ".join(live)
        args = bool(call.args or call.keywords)
        edits.setdefault(li, []).append((j, (", " + rest if rest else "") + (", " if args else ""), 1))

    def closure_of(value, fac, var=None):
        """The product passed as an argument (`g(f)`, `g(add(n))`): the
        closure over its environment and the variables it reads here, as
        they are at that call (infer_call.c closure_make); or assigned to
        the loose variable `var`, when it reads none of them."""
        f = facs[fac]
        live = extras[f.product][1:]
        if var is not None and live and var in deep:
            raise _fail(src, value, f"'{var}', bound to the function returned by the closure factory '{fac}', "
                        f"which reads {', '.join(repr(v) for v in live)} of the enclosing function, read by a "
                        f"function nested in an inner function (pass it to the nested function as an argument: "
                        f"`g(x, {var})`)")
        if var is not None and live:
            raise _fail(src, value, f"'{var}' bound both to the function returned by the closure factory "
                        f"'{fac}' and to another value, while that function reads "
                        f"{', '.join(repr(v) for v in live)} of the enclosing function (give each its own name)")
        edits.setdefault(value.lineno - 1, []).append((value.col_offset + shift, f"_hj_closure({f.product}, "))
        edits.setdefault(value.end_lineno - 1, []).append(
            (value.end_col_offset + shift, "".join(", " + v for v in live) + ")"))

    for n in nodes:
        if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and (n.id in bound or n.id in facs)):
            continue
        p = parents.get(id(n))
        called = isinstance(p, ast.Call) and p.func is n
        if n.id in facs:
            if not called:
                raise _fail(src, n, f"the closure factory '{n.id}' used as a value (only calls are: pass the "
                            f"function it returns, `g({n.id}(k))`)")
            pp = parents.get(id(p))
            if isinstance(pp, ast.Call) and pp.func is p:  # add(n)(y)
                call_product(pp, n.id, p)
            elif _call_arg(p, parents):  # g(add(n))
                closure_of(p, n.id)
            elif isinstance(pp, ast.Assign) and id(pp) in loose_sites and pp.value is p:  # f = add(n), f loose
                closure_of(p, n.id, pp.targets[0].id)
            elif not binds(pp):
                raise _fail(src, p, f"the function returned by the closure factory '{n.id}' used as a value "
                            f"other than an argument of a call (returned or stored; only `f = {n.id}(...)`, "
                            f"calls of it and `g({n.id}(...))` are)")
        elif called:
            call_product(p, bound[n.id], n)
        elif _call_arg(n, parents):  # g(f)
            closure_of(n, bound[n.id])
        elif isinstance(p, ast.Assign) and id(p) in loose_sites and p.value is n:  # h = f, h loose
            closure_of(n, bound[n.id], p.targets[0].id)
        elif not binds(p):
            raise _fail(src, n, f"using '{n.id}', the function returned by the closure factory "
                        f"'{bound[n.id]}', as a value other than an argument of a call (returned or stored; "
                        f"only calls and `g({n.id})` are)")


def _freeze_returns(f, node, tl):
    """The lifted text `tl` of factory def `node`: each returned product
    becomes the tuple of the values it reads."""
    one_line = node.body[0].lineno == node.lineno
    shift = node.col_offset + 4 - node.body[0].col_offset

    def at(lineno, col):
        i = lineno - node.lineno
        if one_line:
            return i + 1, col + shift if i == 0 else col
        return i, col

    for v in sorted(f.values, key=lambda v: (-v.lineno, -v.col_offset)):
        (i0, c0), (i1, c1) = at(v.lineno, v.col_offset), at(v.end_lineno, v.end_col_offset)
        tl[i0] = tl[i0][:c0] + f.env_text() + tl[i1][c1:]
        for i in range(i0 + 1, i1 + 1):
            tl[i] = "\n"


def _closure_text(name, extras):
    """The closure of inner function `name` over its variables, made where
    it is passed (the compiler's builtin; infer_call.c closure_make)."""
    return f"_hj_closure({name}, {', '.join(extras[name])})"


def _call_arg(node, parents):
    """Whether Name `node` is an argument of a call (positional or key=)."""
    p = parents.get(id(node))
    if isinstance(p, ast.keyword):
        return p.arg is not None and isinstance(parents.get(id(p)), ast.Call)
    return isinstance(p, ast.Call) and any(a is node for a in p.args)


def _arg_names(fdef, extras):
    """The names of inner functions reading the enclosing function's
    variables passed as arguments in fdef's own scope."""
    parents = {}
    for n in ast.walk(fdef):
        for ch in ast.iter_child_nodes(n):
            parents[id(ch)] = n
    return [n for n in _own_scope(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and extras.get(n.id) and _call_arg(n, parents)]


def _closure_uses(src, fdef, lifted_nodes, inner, calls, extras, nonlocals):
    """The names in fdef's own text of inner functions reading its
    variables used as values, each an argument of a call (those in an
    inner function's text are its own lift's); other such uses refused."""
    parents = {}
    for n in ast.walk(fdef):
        for ch in ast.iter_child_nodes(n):
            parents[id(ch)] = n
    own = {id(n) for n in _own_scope(fdef)}
    theirs = set()
    for node in lifted_nodes:
        body = node.value if isinstance(node, ast.Assign) else node
        theirs |= {id(n) for n in _own_scope(body)}
    out = []
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Name) and node.id in inner and isinstance(node.ctx, ast.Load)
                and id(node) not in calls and extras[node.id]):
            continue
        reads = ", ".join(repr(v) for v in extras[node.id])
        if node.id in nonlocals:
            raise _fail(src, node, f"using the inner function '{node.id}', which assigns "
                        f"{', '.join(repr(v) for v in nonlocals[node.id])} (nonlocal), as a value (only calls "
                        "of it are)")
        if not _call_arg(node, parents):
            raise _fail(src, node, f"using the inner function '{node.id}', which reads {reads} of the enclosing "
                        "function, as a value other than an argument of a call (returned, stored or bound to "
                        f"another name; pass it where it is used: `sorted(a, key={node.id})`, `g({node.id}, x)`)")
        if id(node) in own:
            out.append(node)
        elif id(node) not in theirs:
            raise _fail(src, node, f"passing the inner function '{node.id}', which reads {reads} of the enclosing "
                        "function, from a function nested in another inner function (pass it from the "
                        "function that defines it, or from one nested one level)")
    return out


def lift(py_func, src, targetoptions, make_source):
    """(new source text, [(name, Lifted)]) for the function, or None when it
    has no inner function.  make_source(text, first_line, col_offset,
    filename) builds a _Source."""
    code = py_func.__code__
    nested = _nested_codes(code)
    if not any(not n.startswith("<") or n == "<lambda>" for n in nested):
        return None
    lines = src.source.splitlines(True)
    tree = ast.parse(src.source)
    fdef = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fdef is None:
        return None
    inner = {}  # name -> (node, kind, body text)
    bound = set()
    # the inner functions of this function's own scope: a def nested in one
    # of them is lifted when that one is compiled (its lift() call)
    for node in _own_scope(fdef):
        if isinstance(node, ast.FunctionDef):
            inner[node.name] = (node, "def")
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Lambda)):
            inner[node.targets[0].id] = (node, "lambda")
            bound.add(id(node.value))
    # a lambda written where a function value goes (`sorted(l, key=lambda
    # x: -x)`, `map(lambda v: v * 2, a)`): lifted as `_hj_lambda<k>`, its
    # text replaced in place by that name (padded to the same width)
    for k, node in enumerate(n for n in _own_scope(fdef) if isinstance(n, ast.Lambda) and id(n) not in bound):
        if node.lineno == node.end_lineno:
            inner[f"_hj_lambda{k}"] = (node, "inline")
    if not inner:
        return None
    # the code objects: a def's by name, the lambdas' in order
    lambdas = [c for c in code.co_consts if isinstance(c, _pytypes.CodeType) and c.co_name == "<lambda>"]
    lam_nodes = sorted((v[0] for v in inner.values() if v[1] != "def"), key=lambda n: (n.lineno, n.col_offset))
    own_lambdas = [n for n in _own_scope(fdef) if isinstance(n, ast.Lambda)]
    if len(own_lambdas) != len(lambdas):  # a lambda over two lines is left to the compiler's refusal
        lam_nodes = [n for n in lam_nodes if inner_kind(inner, n) != "inline"]
        inner = {k: v for k, v in inner.items() if v[1] != "inline"}
        if not inner:
            return None
    lam_code = {id(n): c for n, c in zip(lam_nodes, lambdas)}
    lifted = []
    # what an inner function may read of this function: its locals, and its
    # own free variables (a lifted inner function's are its first
    # parameters; a closure's are constants of the compilation)
    outer_locals = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
    for name, (node, kind) in inner.items():
        c = nested.get(name) if kind == "def" else lam_code.get(id(node))
        if c is None:
            raise _fail(src, node, f"the inner function '{name}' (defined more than once?)")
        extra = [v for v in c.co_freevars if v not in inner]
        for v in extra:
            if v not in outer_locals:
                raise _fail(src, node, f"the inner function '{name}' reading '{v}' of an enclosing function")
        siblings = [v for v in c.co_freevars if v in inner]
        lifted.append((name, node, kind, c, extra, siblings))
    # closure factories (an inner function returning one of its own that
    # reads its variables, its product): the product is lifted here too,
    # the variables of the factory it reads first (the factory returns
    # their values as a tuple: a closure's environment no longer changes
    # once its factory has returned), then those of this function (passed
    # at each call, as they are then)
    facs = {}
    for name, node, kind, c, _, _ in list(lifted):
        f = _factory(src, name, node, kind, c, inner, outer_locals) if kind in ("def", "lambda") else None
        if f is not None:
            facs[name] = f
            hnames = {h: f"_hj_{name}_{h}" for h, _, _ in f.helpers}
            live = [v for v in f.pcode.co_freevars if v not in f.frozen and v not in inner and v not in hnames]
            sibs = [v for v in f.pcode.co_freevars if v in inner] + list(hnames.values())
            lifted.append((f.product, f.pnode, f.pkind, f.pcode, ["_hj_env"] + live, sibs))
            for h, hnode, hcode in f.helpers:
                if h in inner:
                    raise _fail(src, hnode, f"'{h}', called by the function returned by the closure factory "
                                f"'{name}', named as an inner function of the enclosing function (rename one)")
                hlive = [v for v in hcode.co_freevars if v not in f.frozen and v not in inner]
                lifted.append((hnames[h], hnode, "pdef", hcode, ["_hj_env"] + hlive,
                               [v for v in hcode.co_freevars if v in inner]))
    # the variables of this function bound to products (`f = add(n)`); an
    # inner function calling a factory or such a variable calls the product
    # too (and needs the variables of this function the product reads)
    # the variables read by defs nested in an inner function (lifted when
    # that one is compiled, where the products are not known): each holds
    # its product's closure
    products = {f.pcode for f in facs.values()} | {h for f in facs.values() for _, _, h in f.helpers}
    deep = {v for _, _, kind, c, _, _ in lifted if kind in ("def", "lambda", "inline")
            for x in c.co_consts if isinstance(x, _pytypes.CodeType) and x not in products
            for v in x.co_freevars}
    bound = _bind(src, code, fdef, facs, {}, deep)[2] if facs else {}
    uses = {}  # inner function -> (the factories it calls, the variables bound to products it calls)
    for i, (name, node, kind, c, extra, siblings) in enumerate(lifted):
        fs = {v: facs[v] for v in c.co_freevars if v in facs and v != name}
        bs = {v: bound[v] for v in c.co_freevars if v in bound}
        if fs or bs:
            fs.update((b, facs[b]) for b in bs.values())
            uses[name] = (fs, bs)
            more = [f.product for f in fs.values() if f.product not in siblings]
            lifted[i] = (name, node, kind, c, extra, siblings + more)
    # the inner functions' names may only be called
    calls = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in inner:
            calls[id(node.func)] = node
    # an inner function calling another also needs that one's free
    # variables (to pass them on): close the sets over the calls
    extras = {name: list(extra) for name, _, _, _, extra, _ in lifted}
    sibs = {name: siblings for name, _, _, _, _, siblings in lifted}
    changed = True
    while changed:
        changed = False
        for name in extras:
            for s2 in sibs[name]:
                for v in extras[s2]:
                    if v not in extras[name] and v != "_hj_env":
                        extras[name].append(v)
                        changed = True
    lifted = [(name, node, kind, c, extras[name], siblings) for name, node, kind, c, _, siblings in lifted]
    for f in facs.values():
        for s2 in sibs[f.product]:
            for v in extras[s2]:
                if v in f.frozen:
                    raise _fail(src, f.pnode, f"a function returned by the closure factory '{f.name}' calling "
                                f"'{s2}', which reads the '{v}' of the enclosing function, while '{f.name}' has "
                                f"a '{v}' of its own")
    for name, node, kind, c, _, _ in lifted:
        for f in uses.get(name, ({}, {}))[0].values():
            for v in extras[f.product][1:]:
                if v in c.co_varnames:
                    raise _fail(src, node, f"'{name}' calling the function returned by the closure factory "
                                f"'{f.name}', which reads the '{v}' of the enclosing function, while '{name}' "
                                f"has a '{v}' of its own")
    # inner defs assigning variables of this function (`nonlocal total`):
    # such a function also returns their new values, and each call of it
    # here assigns them back (a statement `g(...)` or `x = g(...)`)
    nonlocals = _nonlocals(src, code, lifted)
    # an inner function that reads none of the enclosing function's
    # variables is an ordinary function value (passed, stored, map(f, a));
    # one that does is a value only as an argument of a call (`sorted(l,
    # key=f)`, `apply(f, a)`): `_hj_closure(f, k)` there, the closure over
    # the values its variables have at that call (a closure kept longer
    # would read them as they were when it was made, not at its call)
    closure_uses = _closure_uses(src, fdef, [n for _, n, _, _, _, _ in lifted], inner, calls, extras, nonlocals)
    parents = {}
    for node in _own_scope(fdef):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    out_lines = list(lines)
    by_line = {}
    edits = {}  # line index -> [(column, text)] inserted in this function's text
    for k, call in enumerate(sorted(calls.values(), key=lambda c: (c.lineno, c.col_offset))):
        names = nonlocals.get(call.func.id)
        if not names:
            continue
        if any(n is call for _, node, _, _, _, _ in lifted for n in ast.walk(node)):
            raise _fail(src, call, f"calling '{call.func.id}', which assigns "
                        f"{', '.join(repr(v) for v in names)} (nonlocal), from another inner function")
        stmt = parents.get(id(call))
        back = ", ".join(names)
        if isinstance(stmt, ast.Expr):
            edits.setdefault(stmt.lineno - 1, []).append((stmt.col_offset, f"_hj_nl{k}, {back} = "))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.value is call:
            t = stmt.targets[0]
            if isinstance(t, ast.Tuple) and not _parenthesized(lines, t):
                edits.setdefault(t.lineno - 1, []).append((t.col_offset, "("))
                edits.setdefault(t.end_lineno - 1, []).append((t.end_col_offset, f"), {back}"))
            else:
                edits.setdefault(t.end_lineno - 1, []).append((t.end_col_offset, f", {back}"))
        else:
            raise _fail(src, call, f"a call of '{call.func.id}', which assigns "
                        f"{', '.join(repr(v) for v in names)} (nonlocal), other than as a statement "
                        f"`{call.func.id}(...)` or `x = {call.func.id}(...)`")
    for name, node, kind, c, extra, siblings in lifted:
        if kind in ("pdef", "plambda"):  # inside its factory, blanked already
            continue
        if kind == "inline" and extras[name]:  # the lambda's text becomes its closure
            if not _call_arg(node, parents):
                reads = ", ".join(repr(v) for v in extras[name])
                raise _fail(src, node, f"a lambda reading {reads} of the enclosing function used other than as an "
                            "argument of a call (returned, stored or called where it is written; pass it to the "
                            "call that uses it, `sorted(a, key=lambda t: t[k])`, or bind it to a name and call "
                            "that)")
            edits.setdefault(node.lineno - 1, []).append(
                (node.col_offset, _closure_text(name, extras), node.end_col_offset - node.col_offset))
            continue
        if kind == "inline":  # the lambda's text becomes its name, in place
            b = out_lines[node.lineno - 1].encode()
            width = node.end_col_offset - node.col_offset
            out_lines[node.lineno - 1] = (b[:node.col_offset] + name.ljust(width).encode()
                                          + b[node.end_col_offset:]).decode()
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        start = node.decorator_list[0].lineno - 1 if kind == "def" and node.decorator_list else first
        indent = out_lines[start][:len(out_lines[start]) - len(out_lines[start].lstrip())]
        out_lines[start] = indent + "pass\n"
        for i in range(start + 1, last + 1):
            out_lines[i] = "\n"
    for call in calls.values():
        name = call.func.id
        ex = extras[name]
        if not ex:
            continue
        inside = any(n is call for _, node, _, _, _, _ in lifted for n in ast.walk(node))
        if inside:
            continue  # a call inside an inner function: fixed in that function's text
        by_line.setdefault(call.func.end_lineno - 1, []).append((call.func.end_col_offset, call, ex))
    for li, items in by_line.items():
        for col, call, ex in items:
            j = out_lines[li].index("(", col)
            ins = ", ".join(ex) + (", " if call.args or call.keywords else "")
            edits.setdefault(li, []).append((j + 1, ins))
    for n in closure_uses:
        edits.setdefault(n.lineno - 1, []).append((n.col_offset, _closure_text(n.id, extras), len(n.id)))
    facs_of = {f.product: f for f in facs.values()}
    facs_of.update((f"_hj_{f.name}_{h}", f) for f in facs.values() for h, _, _ in f.helpers)
    if facs:
        _factory_calls(src, code, fdef, facs, {}, extras, out_lines, edits, deep=deep)
    _apply(out_lines, edits)
    new_source = "".join(out_lines)
    # each lifted function's own text, at the lines it came from
    result = []
    glb = py_func.__globals__
    for name, node, kind, c, extra, siblings in lifted:
        args = node.value.args if kind == "lambda" else node.args
        own = ast.unparse(args)
        params = ", ".join(extra + ([own] if own else []))
        if kind in ("def", "pdef"):
            body_first = node.body[0]
            indent = node.col_offset
            if body_first.lineno == node.lineno:  # def f(x): return x
                first = node.lineno - 2  # the header goes on the line above
                line = lines[node.lineno - 1]
                body = [" " * (indent + 4) + line[body_first.col_offset:]] + lines[node.lineno:node.end_lineno]
                tl = [" " * indent + f"def {name}({params}):\n"] + body
                body_col = indent + 4
            else:
                first = node.lineno - 1
                tl = [" " * indent + f"def {name}({params}):\n"]
                tl += ["\n"] * (body_first.lineno - node.lineno - 1)  # header continuation lines
                tl += lines[body_first.lineno - 1:node.end_lineno]
                body_col = body_first.col_offset
            if kind == "pdef" and facs_of[name].cells:  # nonlocal n (its product's): `_hj_cell_n[0]`
                _cell_uses(node, facs_of[name].cells, tl)
            if kind == "pdef" and facs_of[name].frozen:  # `k, c = _hj_env` first, the header above
                first -= 1
                tl.insert(1, " " * body_col + facs_of[name].unpack_text())
            removed = indent
        else:
            lam = node if kind in ("inline", "plambda") else node.value
            seg = ast.get_source_segment(src.source, lam.body)
            if name in facs:  # a lambda factory returns its product's environment
                seg = facs[name].env_text()
            # a body over several lines, or one that is only an expression in
            # parentheses there (`lambda t: (yield t)`, `(x := t)`)
            wrap = "\n" in seg or isinstance(lam.body, (ast.Yield, ast.YieldFrom, ast.NamedExpr))
            ret, close = ("return (", ")") if wrap else ("return ", "")
            pad = lam.body.col_offset - len(ret)
            if pad < 1:
                pad = 4
            first = lam.body.lineno - 2
            tl = [f"def {name}({params}):\n", " " * pad + ret + seg + close + "\n"]
            if kind == "plambda" and facs_of[name].frozen:  # `k, c = _hj_env` first, the header above
                first -= 1
                tl.insert(1, " " * pad + facs_of[name].unpack_text())
            removed = 0
        if kind == "def" and nonlocals.get(name):
            _return_nonlocals(src, node, tl, nonlocals[name])
        if kind == "def" and name in facs:
            _freeze_returns(facs[name], node, tl)
        if name in facs and facs[name].drop is not None:  # its product lambda is gone from its text
            c = c.replace(co_consts=tuple(None if x is facs[name].drop else x for x in c.co_consts))
        # calls of inner functions inside this one get their free variables first
        text = "".join(tl)
        sub = ast.parse(_srctext.dedent(text)[0])
        fix = {}
        for n in ast.walk(sub):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and extras.get(n.func.id):
                j = tl[n.func.end_lineno - 1].index("(", n.func.end_col_offset + removed)
                ins = ", ".join(extras[n.func.id]) + (", " if n.args or n.keywords else "")
                fix.setdefault(n.func.end_lineno - 1, []).append((j + 1, ins))
        f = facs_of.get(name)
        for n in ast.walk(sub) if f is not None and f.helpers else ():  # h(y): _hj_add_h(_hj_env, <live>, y)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in {h for h, _, _ in f.helpers}:
                hname = f"_hj_{f.name}_{n.func.id}"
                li = n.func.lineno - 1
                fix.setdefault(li, []).append((n.func.col_offset + removed, hname, len(n.func.id)))
                j = tl[li].index("(", n.func.end_col_offset + removed)
                ins = ", ".join(extras[hname]) + (", " if n.args or n.keywords else "")
                fix.setdefault(li, []).append((j + 1, ins))
        for n in _arg_names(sub.body[0], extras):  # inner functions passed as arguments: closures
            fix.setdefault(n.lineno - 1, []).append((n.col_offset + removed, _closure_text(n.id, extras), len(n.id)))
        if name in uses:  # calls of closure factories and their products
            esrc = make_source("", src.first_line + first, src.col_offset + removed, src.filename)
            products = {f.pcode for f in facs.values()}
            nested = [x for x in c.co_consts if isinstance(x, _pytypes.CodeType) and x not in products
                      and (not x.co_name.startswith("<") or x.co_name == "<lambda>")]
            _factory_calls(esrc, c, sub.body[0], uses[name][0], uses[name][1], extras, tl, fix, removed, nested)
        _apply(tl, fix)
        cells = tuple(_pytypes.CellType() for _ in c.co_freevars)
        fn = _pytypes.FunctionType(c, glb, name, None, cells)
        lsrc = make_source(_srctext.dedent("".join(tl))[0], src.first_line + first, src.col_offset + removed,
                           src.filename)
        result.append((name, Lifted(fn, lsrc, targetoptions, extra)))
    made = dict(result)
    for (name, lf), (_, _, _, _, _, siblings) in zip(result, lifted):
        lf.siblings = {s: made[s] for s in siblings}
    return new_source, result
