"""A user's module whose jitted functions and constants other tests' jitted
code reaches as attributes (test_globals.py: `mh.scale(x)`, `mh.K`)."""
import numpy as np

from hpcjit import njit

K = 7
RATE = 0.25
TABLE = np.array([1.0, 2.0, 4.0])
SHAPE = (2, 3)


@njit
def scale(x):
    return x * RATE + K


def plain(x):  # not jitted: calling it from compiled code is an error
    return x
