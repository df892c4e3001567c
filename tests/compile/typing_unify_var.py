# args: l
def f(n):
    x = 1
    if n > 2:
        x = None
    return x
