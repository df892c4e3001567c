# args: l
def f(n):
    def g(x):
        return x + 1
    return g(n)
