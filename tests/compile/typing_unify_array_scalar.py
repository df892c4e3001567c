# args: ad2C
def f(a):
    y = 0.0
    if a.size > 1:
        y = a
    return y
