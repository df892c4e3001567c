# args: l
def f(n):
    d = {1: n}
    return n
