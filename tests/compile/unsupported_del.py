# args: l
def f(n):
    m = n
    del m
    return n
