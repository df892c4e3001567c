# args: d
def f(x):
    if x > 0:
        return range(3)
