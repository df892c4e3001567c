# args: s
def f(s):
    return s.encode()
