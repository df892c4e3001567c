# args: l
def f(n):
    d = {1: n, **{2: n}}
    return n
