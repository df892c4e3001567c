def f(x):
    if x:
        y = 1
	y = 2
    return y
