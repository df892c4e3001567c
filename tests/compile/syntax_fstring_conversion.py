def f(x):
    raise ValueError(f"bad value {x!z}")
