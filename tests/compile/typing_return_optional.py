# args: l
def f(n):
    if n > 0:
        return n
    return None
