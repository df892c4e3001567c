# args: l
def f(n):
    for i in range(n):
        n += yield i
