# args: s
def f(s):
    return s.format(1)
