"""`with objmode(x="float64[:]"):` blocks in compiled functions (placeholder
until the runtime side lands: refused with a located UnsupportedError)."""
import ast

from . import errors


def _is_objmode(py_func, node):
    from . import extending
    f = node.func if isinstance(node, ast.Call) else node
    try:
        if isinstance(f, ast.Name):
            v = py_func.__globals__.get(f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            v = getattr(py_func.__globals__.get(f.value.id), f.attr, None)
        else:
            return False
    except Exception:
        return False
    return v is extending.objmode


def rewrite(disp, src, make_source):
    d = disp.__dict__
    if "_hj_objmode" in d:
        return d["_hj_objmode"]
    try:
        tree = ast.parse(src.source)
    except SyntaxError:
        d["_hj_objmode"] = None
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(_is_objmode(disp.py_func, it.context_expr)
                                             for it in node.items):
            line = src.first_line + node.lineno - 1
            text = src.source.splitlines()[node.lineno - 1]
            raise errors.UnsupportedError(
                f"{src.filename}:{line}:{node.col_offset + src.col_offset + 1}: error: objmode "
                f"blocks are not supported by hpcjit yet\n    {text.strip()}\n    ^")
    d["_hj_objmode"] = None
    return None
