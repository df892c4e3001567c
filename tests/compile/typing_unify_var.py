# args: l
def f(n):
    x = None
    if n > 2:
        x = range(n)
    return x is None
