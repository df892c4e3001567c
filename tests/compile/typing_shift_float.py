# args: l d
def f(n, x):
    return n << x
