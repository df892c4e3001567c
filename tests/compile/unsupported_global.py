# args: l
def f(n):
    global counter
    return n
