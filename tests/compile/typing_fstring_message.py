# args: l
def f(n):
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n
