def f(x):
    if x:
        y = 1
      return y
