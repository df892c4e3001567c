"""`with objmode(x="float64[:]", n="int64"):` blocks in compiled functions.

Each block is taken out of the function's source before it is compiled:

- its statements become a Python function of the variables it reads that
  the enclosing function defines (its inputs), returning the tuple of the
  variables the objmode(...) call declares (its outputs), compiled with the
  function's globals (and closure values) and the block's own line numbers;
- the `with` statement becomes `out, n = __objmode_<k>(a, k)`, a call to a
  stub (compiler.h HJ_STUB_PYCALL) whose handle is the function's index in
  _BLOCKS and whose result type is the outputs' declared types.

Compiled code calls it through the runtime (rt_objmode_call, objmode.h) and
hpcjit._core (python/core/objmode.c): with the GIL, the inputs boxed
(numbers, str, tuples, arrays as NumPy arrays sharing the memory), the outputs checked against
their declarations (a located TypeError otherwise) and unboxed; an
exception the block raises leaves the compiled function unchanged.

A block cannot leave the function or its loop (return, yield, break or
continue out of the block): a located UnsupportedError, as with other
`with` forms.  Outside compiled code (py_func, DISABLE_JIT) objmode is a
context manager that does nothing: the block just runs."""
import ast
import copy

from . import errors

# handle -> the block's function; _INFO[handle] = (names, declared types as
# written, "file:line:col")
_BLOCKS = []
_INFO = []
# (code object, line of the block, source text) -> handle: compiling the
# function again (other argument types, overload resolution) reuses it
_BY_KEY = {}


def _scope(py_func):
    """The function's globals with its closure cells' values over them."""
    code = py_func.__code__
    if not (code.co_freevars and py_func.__closure__):
        return py_func.__globals__, {}
    cells = {}
    for name, cell in zip(code.co_freevars, py_func.__closure__):
        try:
            cells[name] = cell.cell_contents
        except ValueError:
            pass
    return py_func.__globals__, cells


def _lookup(py_func, name):
    glb, cells = _scope(py_func)
    if name in cells:
        return cells[name]
    if name in glb:
        return glb[name]
    import builtins
    return getattr(builtins, name, None)


def _is_objmode(py_func, node):
    """Whether `node` (a with item's expression) is objmode(...) / objmode
    as the function's globals or closure name it."""
    from . import extending
    f = node.func if isinstance(node, ast.Call) else node
    if isinstance(f, ast.Name):
        v = _lookup(py_func, f.id)
    elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        v = getattr(_lookup(py_func, f.value.id), f.attr, None)
    else:
        return False
    return isinstance(v, extending._ObjModeContext) or _is_numba_objmode(v)


def _is_numba_objmode(v):
    """Real Numba's objmode, where the drop-in is not in use but code
    imports it anyway (numba installed): treated the same."""
    t = type(v)
    return t.__name__ == "_ObjModeContextType" and t.__module__.startswith("numba")


class _Where:
    """Locations in the user's file for nodes of the dedented source."""

    def __init__(self, src):
        self.src = src
        self.lines = src.source.splitlines()

    def at(self, node):
        line = self.src.first_line + node.lineno - 1
        return line, node.col_offset + self.src.col_offset + 1

    def error(self, cls, node, msg):
        line, col = self.at(node)
        text = self.lines[node.lineno - 1] if node.lineno - 1 < len(self.lines) else ""
        pad = " " * self.src.col_offset
        return cls(f"{self.src.filename}:{line}:{col}: error: {msg}\n"
                   f"    {pad}{text}\n    {' ' * (col - 1)}^")


# ---- names --------------------------------------------------------------------------

def _stored(node, out):
    """Names a statement tree stores to (assignments, loop and with
    targets, imports, defs), not looking into nested scopes."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(child.name)
            continue
        if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            out.add(child.id)
        elif isinstance(child, ast.alias):
            out.add((child.asname or child.name).split(".")[0])
        elif isinstance(child, ast.ExceptHandler) and child.name:
            out.add(child.name)
        _stored(child, out)
    return out


def _loaded(node, out):
    """Names a tree reads (nested scopes included: they read the
    enclosing block's variables)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
    return out


def _inputs(body, outer_locals):
    """The variables of the enclosing function the block reads before it
    assigns them, in order of first use."""
    seen, order, assigned = set(), [], set()
    for stmt in body:
        reads = []
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                reads.append(n.id)
        for name in reads:
            if name in outer_locals and name not in assigned and name not in seen:
                seen.add(name)
                order.append(name)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            assigned |= _stored(stmt, set())
    return order


def _check_flow(where, body):
    """return/yield anywhere in the block, break/continue outside a loop of
    the block: located UnsupportedError."""

    def visit(node, in_loop):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
                what = "return" if isinstance(child, ast.Return) else "yield"
                raise where.error(errors.UnsupportedError, child,
                                  f"'{what}' inside an objmode block is not supported "
                                  f"(declare the values as outputs and {what} them after it)")
            if isinstance(child, (ast.Break, ast.Continue)) and not in_loop:
                what = "break" if isinstance(child, ast.Break) else "continue"
                raise where.error(errors.UnsupportedError, child,
                                  f"'{what}' out of an objmode block is not supported")
            visit(child, in_loop or isinstance(child, (ast.For, ast.While, ast.AsyncFor)))

    for stmt in body:
        wrap = ast.Module(body=[stmt], type_ignores=[])
        visit(wrap, False)


# ---- declared types -------------------------------------------------------------------

def _typecode(decl):
    """Typecode of a declared output type: a Numba type string
    ("float64[:]", "UniTuple(int64, 2)") or an hpcjit type object; None
    when it is not one."""
    from . import types as _types
    if isinstance(decl, str):
        from . import _compiler
        try:
            return _compiler.parse_signature(f"none({decl})")[1][0]
        except (TypeError, ValueError):
            pass
        try:
            decl = eval(decl, {"__builtins__": {}}, dict(vars(_types)))  # "Tuple((int64, float64))"
        except Exception:
            return None
    if isinstance(decl, _types.Type):
        return decl.typecode
    code = getattr(decl, "typecode", None)  # a Numba type under the drop-in
    return code if isinstance(code, str) else None


def _outputs(py_func, where, with_node, call):
    """[(name, declared as written, typecode)] of objmode(name=type, ...)."""
    if call is None:
        return []
    if call.args:
        raise where.error(errors.TypingError, with_node,
                          "objmode() takes the output variables' types as keyword arguments only")
    glb, cells = _scope(py_func)
    outs = []
    for kw in call.keywords:
        if kw.arg is None:
            raise where.error(errors.UnsupportedError, with_node, "objmode(**types) is not supported")
        if isinstance(kw.value, ast.Constant):
            decl = kw.value.value
        else:
            try:
                decl = eval(compile(ast.Expression(kw.value), "<objmode>", "eval"), glb, dict(cells))
            except Exception as exc:
                raise where.error(errors.TypingError, with_node,
                                  f"objmode: cannot evaluate the type of '{kw.arg}': {exc}") from None
        code = _typecode(decl)
        if not code and isinstance(decl, str):
            raise where.error(errors.TypingError, with_node,
                              f"objmode: the type of '{kw.arg}', {decl!r}, is not a type hpcjit knows")
        if not code or "#" in code or (any(c in code for c in "[{<") and any(c in code for c in "ar")):
            raise where.error(errors.TypingError, with_node,
                              f"objmode: '{kw.arg}' is declared as {decl!r}, which is not a type "
                              f"hpcjit can take out of an objmode block (numbers, str, arrays, "
                              f"tuples of them)")
        outs.append((kw.arg, decl if isinstance(decl, str) else str(decl), code))
    return outs


# ---- the rewrite ---------------------------------------------------------------------

def _block_function(py_func, src, with_node, inputs, outputs, tag):
    """The block's statements as a Python function (see the module's docstring)."""
    body = copy.deepcopy(with_node.body)
    ret = ast.Return(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n, _, _ in outputs],
                                     ctx=ast.Load()))
    ast.copy_location(ret, with_node.body[-1])
    ast.copy_location(ret.value, with_node.body[-1])
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in inputs], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fdef = ast.FunctionDef(name=tag, args=args, body=body + [ret], decorator_list=[], returns=None,
                           type_comment=None)
    ast.copy_location(fdef, with_node)
    mod = ast.Module(body=[fdef], type_ignores=[])
    ast.fix_missing_locations(mod)
    ast.increment_lineno(mod, src.first_line - 1)
    glb, cells = _scope(py_func)
    if cells and _loaded(with_node, set()) & set(cells):
        glb = dict(glb)  # closure values the block reads: a copy of the globals holds them
        glb.update(cells)
    ns = {}
    exec(compile(mod, src.filename, "exec"), glb, ns)
    fn = ns[tag]
    fn.__qualname__ = f"{py_func.__qualname__}.<objmode block>"
    return fn


def _blocks(py_func, tree):
    """The objmode `with` statements of the function, outermost only (one
    inside another runs in the interpreter as part of it)."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.With) and any(_is_objmode(py_func, it.context_expr)
                                                  for it in child.items):
                found.append(child)
                continue
            if isinstance(child, (ast.Lambda, ast.ClassDef)):
                continue
            visit(child)

    visit(tree)
    return found


def rewrite(disp, src, make_source):
    """None when the function has no objmode block, else (source with the
    blocks replaced by stub calls, [(stub name, handle, outputs' typecode)])."""
    d = disp.__dict__
    cached = d.get("_hj_objmode")
    if cached is not None and cached[0] is src.source:
        return cached[1]
    res = _rewrite(disp.py_func, src, make_source)
    d["_hj_objmode"] = (src.source, res)
    return res


def _rewrite(py_func, src, make_source):
    try:
        tree = ast.parse(src.source)
    except SyntaxError:
        return None  # the compiler reports it
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    fdef = tree.body[0]
    blocks = _blocks(py_func, fdef)
    if not blocks:
        return None
    where = _Where(src)
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs]
    params += [a.arg for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None]
    lines = src.source.split("\n")
    stubs = []
    for k, node in enumerate(blocks):
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            raise where.error(errors.UnsupportedError, node,
                              "objmode must be the only context manager of its `with` "
                              "statement, without `as`")
        expr = node.items[0].context_expr
        outputs = _outputs(py_func, where, node, expr if isinstance(expr, ast.Call) else None)
        _check_flow(where, node.body)
        declared = {n for n, _, _ in outputs}
        stored = set()
        for stmt in node.body:
            stored |= _stored(ast.Module(body=[stmt], type_ignores=[]), set())
        lost = sorted((stored - declared) & _read_after(fdef, node))
        if lost:  # Numba: "... with objmode(z='<add_type_as_string_here>')"
            raise where.error(errors.TypingError, node,
                              f"objmode: {', '.join(repr(n) for n in lost)} "
                              f"{'is' if len(lost) == 1 else 'are'} assigned in the block and used "
                              f"after it: declare {'its' if len(lost) == 1 else 'their'} type, "
                              f"objmode({lost[0]}='<type>')")
        # the enclosing function's variables: its parameters and what it
        # stores outside this block
        inputs = _inputs(node.body, set(params) | _stored_outside(fdef, node))
        line, col = where.at(node)
        key = (py_func.__code__, line, ast.dump(node))
        handle = _BY_KEY.get(key)
        if handle is None:
            fn = _block_function(py_func, src, node, inputs, outputs, f"__objmode_block_{line}")
            handle = len(_BLOCKS)
            _BLOCKS.append(fn)
            _INFO.append(([n for n, _, _ in outputs], [d for _, d, _ in outputs],
                          f"{src.filename}:{line}:{col}"))
            _BY_KEY[key] = handle
        name = f"__objmode_{k}"
        call = f"{name}({', '.join(inputs)})"
        if outputs:
            targets = ", ".join(n for n, _, _ in outputs)
            call = f"{targets}{',' if len(outputs) == 1 else ''} = {call}"
        first, last = node.lineno - 1, node.end_lineno - 1
        # the `with` line stays visible in the compiler's located errors
        lines[first] = " " * node.col_offset + call + "  # " + lines[first].strip()
        for i in range(first + 1, last + 1):
            lines[i] = ""
        stubs.append((name, handle, "(" + "".join(c for _, _, c in outputs) + ")"))
    text = "\n".join(lines)
    return make_source(text, src.first_line, src.col_offset, src.filename), stubs


def _stored_outside(fdef, block):
    """Names the function stores to outside `block`."""
    out = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if child is block:
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(child.name)
                continue
            if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                  ast.GeneratorExp)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
                out.add(child.id)
            elif isinstance(child, ast.alias):
                out.add((child.asname or child.name).split(".")[0])
            elif isinstance(child, ast.ExceptHandler) and child.name:
                out.add(child.name)
            visit(child)

    for stmt in fdef.body:
        visit(ast.Module(body=[stmt], type_ignores=[]))
    return out


def _read_after(fdef, block):
    """Names the function reads outside `block` where a value the block
    stored may reach: after it, or anywhere in a loop around it."""
    loops = []

    def enclosing(node, stack):
        for child in ast.iter_child_nodes(node):
            if child is block:
                loops.extend(stack)
                return True
            inner = stack + [child] if isinstance(child, (ast.For, ast.While)) else stack
            if enclosing(child, inner):
                return True
        return False

    enclosing(fdef, [])
    inside = {id(n) for n in ast.walk(block)}
    names = set()
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in inside \
                and n.lineno > block.end_lineno:
            names.add(n.id)
    for loop in loops:
        for n in ast.walk(loop):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in inside:
                names.add(n.id)
    return names


def _mismatch(handle, index, value):
    """Raise the TypeError for output `index` of block `handle` whose value
    does not match its declared type (called by hpcjit._core)."""
    from . import types as _types
    names, decls, where = _INFO[handle]
    try:
        got = _types.typeof(value)
    except Exception:
        got = None
    what = f"{type(value).__name__}" if got is None or got.typecode is None else f"{got}"
    raise TypeError(f"{where}: objmode: the value of '{names[index]}' ({what}) does not match "
                    f"its declared type {decls[index]}")
