# args: l
def f(n):
    g = lambda x: x + 1
    return n
