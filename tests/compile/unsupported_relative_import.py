# args: l
def f(n):
    from .sibling import helper
    return n
