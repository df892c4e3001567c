# args: D
def f(z):
    return math.sqrt(z)
