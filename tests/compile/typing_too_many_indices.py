# args: ad1C
def f(a):
    return a[0, 1]
