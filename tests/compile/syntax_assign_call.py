def f(x):
    g(x) = 1
