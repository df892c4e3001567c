# args: l l
def f(n, w):
    if n < 0:
        raise ValueError(f"negative: {n:>{w}}")
    return n
