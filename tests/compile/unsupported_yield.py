# args: l
def f(n):
    for i in range(n):
        yield i
