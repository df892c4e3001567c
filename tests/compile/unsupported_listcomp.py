# args: l
def f(n):
    xs = (i * i for i in range(n))
    return n
