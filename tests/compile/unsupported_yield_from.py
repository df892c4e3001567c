# args: l
def f(n):
    yield n
    yield from range(n)
