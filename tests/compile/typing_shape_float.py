# args: d
def f(x):
    return np.zeros(x)
