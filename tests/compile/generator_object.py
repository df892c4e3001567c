# args: l
def f(n):
    s = 0.0
    for i in range(n):
        s += i
        if s > 10:
            return
        yield s
