def f(x):
    s = "abc
    return s
