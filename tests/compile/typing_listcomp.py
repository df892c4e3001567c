# args: l
def f(n):
    return sum([i * i for i in range(n)] + [0.5])
