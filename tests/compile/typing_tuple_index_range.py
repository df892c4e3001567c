# args: (ld)
def f(t):
    return t[-3]
