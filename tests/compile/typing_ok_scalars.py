# args: l d f
def f(n, x, y):
    acc = 0
    for i in range(n):
        acc += i
    acc = acc / 2
    q, r = divmod(n, 3)
    a, b = b, a = x, y
    z = complex(x, y)
    w = math.floor(x) + round(y) + abs(-n) + min(n, x) + max(q, r, 1)
    ok = 0 < x <= 10 and not (n is None)
    return acc + w + z.real, ok, (n, x)[0], a, b
