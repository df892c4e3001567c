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
point into it.  Refused with a located error: an inner
function used other than by calling it (returned, passed, stored).  An
inner def assigning variables of the outer function (`nonlocal total`) also
returns their new values (`return (x), total`), and each call of it, a
statement `add(i)` or an assignment `x = add(i)`, assigns them back
(`_hj_nl0, total = add(total, i)`).  A def nested in an
inner function is lifted out of that one when it is compiled, in turn."""
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
    out, todo = [], list(fdef.body)
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
    """Insert each (column, text) of edits[line index] into lines, the
    rightmost first (the columns are the original line's)."""
    for li, items in edits.items():
        text = lines[li]
        for col, ins in sorted(items, key=lambda t: -t[0]):
            text = text[:col] + ins + text[col:]
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
        if kind == "inline" and c.co_freevars:
            raise _fail(src, node, f"a lambda reading {', '.join(repr(v) for v in c.co_freevars)} of the "
                        "enclosing function as a value (bind it to a name and call it)")
        for v in extra:
            if v not in outer_locals:
                raise _fail(src, node, f"the inner function '{name}' reading '{v}' of an enclosing function")
        siblings = [v for v in c.co_freevars if v in inner]
        lifted.append((name, node, kind, c, extra, siblings))
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
                    if v not in extras[name]:
                        extras[name].append(v)
                        changed = True
    lifted = [(name, node, kind, c, extras[name], siblings) for name, node, kind, c, _, siblings in lifted]
    # an inner function that reads none of the enclosing function's
    # variables is an ordinary function value (passed, stored, map(f, a));
    # one that does may only be called (its values are passed at the call)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and node.id in inner and isinstance(node.ctx, ast.Load) \
                and id(node) not in calls and extras[node.id]:
            raise _fail(src, node, f"using the inner function '{node.id}', which reads "
                        f"{', '.join(repr(v) for v in extras[node.id])} of the enclosing function, "
                        "as a value (only calls are)")
    # inner defs assigning variables of this function (`nonlocal total`):
    # such a function also returns their new values, and each call of it
    # here assigns them back (a statement `g(...)` or `x = g(...)`)
    nonlocals = _nonlocals(src, code, lifted)
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
    _apply(out_lines, edits)
    new_source = "".join(out_lines)
    # each lifted function's own text, at the lines it came from
    result = []
    glb = py_func.__globals__
    for name, node, kind, c, extra, siblings in lifted:
        args = node.args if kind == "def" else node.args if kind == "inline" else node.value.args
        own = ast.unparse(args)
        params = ", ".join(extra + ([own] if own else []))
        if kind == "def":
            body_first = node.body[0]
            indent = node.col_offset
            if body_first.lineno == node.lineno:  # def f(x): return x
                first = node.lineno - 2  # the header goes on the line above
                line = lines[node.lineno - 1]
                body = [" " * (indent + 4) + line[body_first.col_offset:]] + lines[node.lineno:node.end_lineno]
                tl = [" " * indent + f"def {name}({params}):\n"] + body
            else:
                first = node.lineno - 1
                tl = [" " * indent + f"def {name}({params}):\n"]
                tl += ["\n"] * (body_first.lineno - node.lineno - 1)  # header continuation lines
                tl += lines[body_first.lineno - 1:node.end_lineno]
            removed = indent
        else:
            lam = node if kind == "inline" else node.value
            seg = ast.get_source_segment(src.source, lam.body)
            ret, close = ("return (", ")") if "\n" in seg else ("return ", "")
            pad = lam.body.col_offset - len(ret)
            if pad < 1:
                pad = 4
            first = lam.body.lineno - 2
            tl = [f"def {name}({params}):\n", " " * pad + ret + seg + close + "\n"]
            removed = 0
        if kind == "def" and nonlocals.get(name):
            _return_nonlocals(src, node, tl, nonlocals[name])
        # calls of inner functions inside this one get their free variables first
        text = "".join(tl)
        sub = ast.parse(_srctext.dedent(text)[0])
        fix = {}
        for n in ast.walk(sub):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and extras.get(n.func.id):
                fix.setdefault(n.func.end_lineno - 1, []).append((n.func.end_col_offset, n, extras[n.func.id]))
        for li, items in fix.items():
            for col, call, ex in sorted(items, key=lambda t: -t[0]):
                j = tl[li].index("(", col + removed)
                ins = ", ".join(ex) + (", " if call.args or call.keywords else "")
                tl[li] = tl[li][:j + 1] + ins + tl[li][j + 1:]
        cells = tuple(_pytypes.CellType() for _ in c.co_freevars)
        fn = _pytypes.FunctionType(c, glb, name, None, cells)
        lsrc = make_source(_srctext.dedent("".join(tl))[0], src.first_line + first, src.col_offset + removed,
                           src.filename)
        result.append((name, Lifted(fn, lsrc, targetoptions, extra)))
    made = dict(result)
    for (name, lf), (_, _, _, _, _, siblings) in zip(result, lifted):
        lf.siblings = {s: made[s] for s in siblings}
    return new_source, result
