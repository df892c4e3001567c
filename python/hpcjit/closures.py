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
function used other than by calling it (returned, passed, stored), one that
assigns a variable of the outer function (nonlocal).  A def nested in an
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
    edits = []  # (line index, col, old length, new text) in src.source
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
    # the new source of the outer function: defs and lambda statements
    # become `pass`, calls get the free variables first
    out_lines = list(lines)
    by_line = {}
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
        for col, call, ex in sorted(items, key=lambda t: -t[0]):
            text = out_lines[li]
            j = text.index("(", col)
            ins = ", ".join(ex) + (", " if call.args or call.keywords else "")
            out_lines[li] = text[:j + 1] + ins + text[j + 1:]
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
