# args: l
def f(n):
    with open(n) as g:
        pass
    return n
