# args: l
def f(n):
    if n > 0:
        return n
    if n < -5:
        return None
    return (n, n)
