# args: ad2C
def f(a):
    y = 0.0
    y = a
    return y
