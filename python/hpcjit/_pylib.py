"""Python builtins and standard-library functions that compiled code calls,
written in Python and compiled by hpcjit like any @njit function (Numba
implements these the same way).  compiler._classify maps the real objects
(builtins.any, heapq.heappush...) to the dispatchers here.

Each works on whatever a `for` loop iterates in compiled code (lists,
1-D arrays, tuples of one type, ranges, sets, dict keys, strings);
heapq's functions work on lists, as in Numba (a list of one item type)."""
from . import njit

__all__ = ["PYLIB"]


@njit
def any_(iterable):
    for v in iterable:
        if v:
            return True
    return False


@njit
def all_(iterable):
    for v in iterable:
        if not v:
            return False
    return True


# ---- heapq: a binary min-heap in a list (heap[k] <= heap[2k+1], heap[2k+2]) ----

@njit
def _sift_up(heap, pos):
    """Move heap[pos] toward the root while it is smaller than its parent."""
    item = heap[pos]
    while pos > 0:
        parent = (pos - 1) >> 1
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = item


@njit
def _sift_down(heap, pos):
    """Move heap[pos] toward the leaves while a child is smaller."""
    n = len(heap)
    item = heap[pos]
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] < item:
            heap[pos] = heap[child]
            pos = child
        else:
            break
    heap[pos] = item


@njit
def heappush(heap, item):
    heap.append(item)
    _sift_up(heap, len(heap) - 1)


@njit
def heappop(heap):
    last = heap.pop()  # IndexError on an empty heap, as Python
    if len(heap) == 0:
        return last
    top = heap[0]
    heap[0] = last
    _sift_down(heap, 0)
    return top


@njit
def heapify(heap):
    for pos in range(len(heap) // 2 - 1, -1, -1):
        _sift_down(heap, pos)


@njit
def heapreplace(heap, item):
    if len(heap) == 0:
        raise IndexError("index out of range")
    top = heap[0]
    heap[0] = item
    _sift_down(heap, 0)
    return top


@njit
def heappushpop(heap, item):
    if len(heap) > 0 and heap[0] < item:
        top = heap[0]
        heap[0] = item
        _sift_down(heap, 0)
        return top
    return item


@njit
def nsmallest(n, iterable):
    out = sorted(iterable)
    return out[:max(n, 0)]


@njit
def nlargest(n, iterable):
    out = sorted(iterable)
    out.reverse()
    return out[:max(n, 0)]


def _table():
    import builtins
    import heapq
    pairs = [(builtins.any, any_), (builtins.all, all_)]
    for name in ("heappush", "heappop", "heapify", "heapreplace", "heappushpop", "nsmallest", "nlargest"):
        pairs.append((getattr(heapq, name), globals()[name]))
        cpy = getattr(heapq, "_" + name, None)  # the pure-Python twins heapq keeps
        if cpy is not None:
            pairs.append((cpy, globals()[name]))
    return {id(obj): (obj, disp) for obj, disp in pairs}


PYLIB = _table()
