"""`with objmode(x="float64[:]"):` blocks in compiled functions.

Running the block needs compiled code to call the interpreter (box the live
variables, call a function made of the block's source, unbox the declared
outputs); that part is not implemented yet, so a function holding such a
block is refused before it is compiled, with an UnsupportedError located at
the `with` line.  (Without this check the compiler would refuse the `with`
statement itself, without naming objmode.)"""
import ast

from . import errors


def _is_objmode(py_func, node):
    """Whether `node` (a with item's expression) is objmode(...) / objmode
    as the function's globals or closure name it."""
    from . import extending
    f = node.func if isinstance(node, ast.Call) else node
    scope = dict(py_func.__globals__)
    code = py_func.__code__
    if code.co_freevars and py_func.__closure__:
        for name, cell in zip(code.co_freevars, py_func.__closure__):
            try:
                scope[name] = cell.cell_contents
            except ValueError:
                pass
    if isinstance(f, ast.Name):
        v = scope.get(f.id)
    elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        v = getattr(scope.get(f.value.id), f.attr, None)
    else:
        return False
    return isinstance(v, extending._ObjModeContext)


def rewrite(disp, src, make_source):
    """None when the function has no objmode block; raises UnsupportedError
    at the first one otherwise (see the module's docstring)."""
    try:
        tree = ast.parse(src.source)
    except SyntaxError:
        return None  # the compiler reports it
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(_is_objmode(disp.py_func, it.context_expr)
                                             for it in node.items):
            line = src.first_line + node.lineno - 1
            col = node.col_offset + src.col_offset
            text = src.source.splitlines()[node.lineno - 1]
            raise errors.UnsupportedError(
                f"{src.filename}:{line}:{col + 1}: error: objmode blocks are not supported by "
                f"hpcjit yet (compiled code cannot call the interpreter); move the block into a "
                f"Python function called around the compiled one\n"
                f"    {' ' * src.col_offset}{text}\n    {' ' * col}^")
    return None
