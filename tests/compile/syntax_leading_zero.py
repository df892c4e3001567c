def f(x):
    return 012
