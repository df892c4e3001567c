# args: l
def f(n):
    s = "abc"
    return n
