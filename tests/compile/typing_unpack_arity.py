# args: (ll)
def f(t):
    a, b, c = t
    return a
