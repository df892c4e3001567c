# args: ad1C
def f(a):
    return np.linalg.inv(a)
