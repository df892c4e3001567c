# args: ad1C ad1C
def f(a, b):
    z = zip(a, b)
    s = 0.0
    for x, y in z:
        s += x * y
    return s, len(list(z))
