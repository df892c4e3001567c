"""return/break/continue leaving a try with a finally clause run the clause
first, as CPython.  Compared with CPython (py_func)."""
import numpy as np

import hpcjit
from conftest import check

njit = hpcjit.njit

@njit
def f(x):
    log = np.zeros(4)
    try:
        if x > 0:
            return x * 2.0
        log[0] = 1
    finally:
        log[1] += 10
    return log.sum()
@njit
def g(n):
    s = 0
    for i in range(n):
        try:
            if i == 2:
                continue
            if i == 4:
                break
            s += i
        finally:
            s += 100
    return s
@njit
def h(n):
    s = 0
    try:
        for i in range(n):
            try:
                if i == 1:
                    return s
            finally:
                s += 1
    finally:
        s += 1000
    return s
@njit
def k(x):
    try:
        raise ValueError("a")
    except ValueError:
        return 1
    finally:
        x += 1
    return x

def test_jumps_through_finally():
    for x in (1.0, -1.0):
        check(f, x)
    for n in (0, 3, 6):
        check(g, n)
        check(h, n)
    check(k, 0)
