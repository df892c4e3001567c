# Every statement and expression form the parser knows; parsing must say ok.
@decorator
@decorator.attr(1, key=2)
def grammar(a, b: int, /, c=1, *args: float, d, e: str = "s", **kw) -> "ret":
    """Docstring."""
    x = 1; y = 2;
    x = y = z = 0
    x, y = y, x
    (x, y), [z, w] = (1, 2), [3, 4]
    first, *rest = args
    a[0], a.b, a[1:2] = 1, 2, 3
    x += 1; x -= 1; x *= 2; x /= 2; x //= 2; x %= 3; x **= 2; x @= m
    x <<= 1; x >>= 1; x &= 1; x |= 1; x ^= 1
    total: float = 0.0
    count: int
    self.attr: int = 3
    if x: pass
    if x and y or not z:
        pass
    elif x < y <= z != w == v > u >= t:
        pass
    elif x is None or x is not None or x in s or x not in s:
        pass
    else:
        pass
    for i in range(0, 10, -1):
        if i % 2 == 0:
            continue
        break
    else:
        pass
    for i, (j, k) in enumerate(zip(a, b)):
        pass
    while (n := x - 1) > 0:
        x -= 1
    else:
        pass
    v = a | b ^ c & d << 1 >> 2 + 3 - 4 * 5 / 6 // 7 % 8 @ m
    v = -x + +y - ~z ** -2 ** 3
    v = x if y else z if w else u
    v = lambda p, q=1, *r, s, **t: p + q
    v = lambda: 0
    v = a[1], a[1:2], a[::2], a[:, 0], a[..., None], a[i, j:k, ::-1], a[()], a[:]
    v = f(1, *args, key=2, **kw)
    v = f(x for x in y)
    v = obj.method(1)[0].attr
    v = [], [1, 2, 3,], [*a, *b], (), (1,), (1, 2), {}, {1: 2, **kw}, {1, 2, *s}
    v = [x * y for x in a if x for y in b if y if z]
    v = {k: v for k, v in d.items()}
    v = {x for x in s}
    v = (x async for x in y)
    v = 1, 1.5, 1e-3, .5, 1_000, 0xFF, 0o17, 0b1010, 3j, 2.5J, True, False, None, ...
    v = "a" 'b' """c""" '''d''' r"\e" u"f"
    v = b"bytes" rb"\raw" Br'x'
    v = f"{x} and {y!r:>10} and {z=} and {w:{width}.{prec}f} {{literal}}"
    v = -9223372036854775808
    v = not x
    v = await_ = 1
    del v, a[0], a.attr
    global gl
    nonlocal nl
    import os, numpy as np
    from os.path import join as j, exists
    from . import sibling
    from ..pkg import (name1,
                       name2 as n2,)
    assert x, "message"
    assert x
    raise
    raise ValueError
    raise ValueError("msg") from err
    with open(p) as fh, other():
        pass
    with (open(p) as fh, open(q) as gh):
        pass
    try:
        pass
    except ValueError as err:
        pass
    except (TypeError, IndexError):
        pass
    except:
        pass
    else:
        pass
    finally:
        pass
    try:
        pass
    finally:
        pass
    class Inner(Base, metaclass=Meta):
        attr = 1
        def method(self):
            return self.attr
    def inner(*, kwonly):
        nonlocal x
        yield x
        yield from y
        z = yield
    async def coro():
        await thing()
        async for i in aiter():
            pass
        async with lock:
            pass
    match command:
        case [x, y]:
            pass
        case {"k": v}:
            pass
        case _:
            pass
    match = 1
    print(match)
    x = \
        1 + \
        2
    return x, y
