# args: l
def f(n):
    try:
        n += 1
    except ValueError:
        pass
    return n
