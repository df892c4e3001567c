# args: ad2C
def pairwise(X):
    m, k = X.shape
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            d = 0.0
            for t in range(k):
                diff = X[i, t] - X[j, t]
                d += diff * diff
            D[i, j] = np.sqrt(d)
    return D
