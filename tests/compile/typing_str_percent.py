# args: l l
def f(n, w):
    if n < 0:
        raise ValueError("negative: %d of %d" % (n,))
    return "%*d" % (w, n)
