def f(x):
    return g(a=1, x)
