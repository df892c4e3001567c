# args: l
def f(n):
    try:
        n += 1
    except ValueError as e:
        n = len(str(e))
    return n
