# args: ad2C
def f(a):
    return a @ 2.0
