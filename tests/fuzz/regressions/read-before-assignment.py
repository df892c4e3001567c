# args: ad1C
def asarray_dtype(a):
    b[0] = 42
    b = np.asarray(a, dtype=np.float32)
    return b
