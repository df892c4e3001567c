# args: ad1C
def f(a):
    return a + "x"
