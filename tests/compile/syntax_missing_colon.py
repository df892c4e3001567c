def f(x):
    for i in range(x)
        pass
