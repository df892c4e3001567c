def counts(a):
    d = {}
    for x in a:
        d[x] = d[x] = d
    return len(d)
