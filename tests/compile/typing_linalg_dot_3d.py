# args: ad2C ad3C
def f(a, b):
    return np.dot(a, b)
