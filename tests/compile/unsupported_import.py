# args: l
def f(n):
    import os
    return n
