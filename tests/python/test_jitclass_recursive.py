"""Recursive data structures with jitclasses (issue 11): deferred_type()
defined after the class, optional(node_type) fields holding None or an
instance, `is None` / `is not None` tests, a linked list, a binary tree
(recursive insertion and traversal), stacks of optional nodes, instances
passed to and returned from Python.  Every compiled function is compared
with its py_func through check(), with memstats balance; long chains are
freed without recursion (runtime/jitclass.c)."""
import gc
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, types
from conftest import AGAINST_NUMBA, assert_located_in, check, run_python

if AGAINST_NUMBA:
    from numba import deferred_type, optional
    from numba.experimental import jitclass
else:
    from hpcjit import deferred_type, optional
    from hpcjit.experimental import jitclass

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    gc.collect()
    before = memstats()
    yield
    gc.collect()
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


# ---- a singly linked list -------------------------------------------------

node_type = deferred_type()


@jitclass([("data", types.int32), ("next", optional(node_type))])
class LinkedNode:
    def __init__(self, data, next):
        self.data = data
        self.next = next

    def prepend(self, data):
        return LinkedNode(data, self)


node_type.define(LinkedNode.class_type.instance_type)


@njit
def make_linked_node(data):
    return LinkedNode(data, None)


@njit
def fill_array(arr):
    head = make_linked_node(0)
    for i in range(1, arr.size):
        head = head.prepend(i)
    c = 0
    while head is not None:
        arr[c] = head.data
        head = head.next
        c += 1


@njit
def build_list(n):
    head = make_linked_node(0)
    for i in range(1, n):
        head = head.prepend(i)
    return head


@njit
def list_sum(head):
    s = 0
    node = head
    while node is not None:
        s += node.data
        node = node.next
    return s


@njit
def list_length(n):
    head = build_list(n)
    c = 0
    node = head
    while node is not None:
        c += 1
        node = node.next
    return c


@njit
def second_or_minus_one(n):
    head = build_list(n)
    nxt = head.next
    if nxt is None:
        return -1
    return nxt.data


@njit
def cut_after_first(n):
    head = build_list(n)
    head.next = None  # the rest of the chain dies here
    return list_sum(head)


@njit
def reverse(head):
    prev = None
    node = head
    while node is not None:
        nxt = node.next
        node.next = prev
        prev = node
        node = nxt
    return prev


@njit
def reversed_to_array(n):
    head = reverse(build_list(n))
    out = np.empty(n, np.int64)
    c = 0
    while head is not None:
        out[c] = head.data
        head = head.next
        c += 1
    return out


def test_fill_array(balanced):
    arr = np.zeros(10, dtype=np.int32)
    check(fill_array, arr)
    fill_array(arr)
    np.testing.assert_equal(arr, np.arange(10, dtype=np.int32)[::-1])


@pytest.mark.parametrize("n", [1, 2, 7])
def test_list_functions(balanced, n):
    check(list_length, n)
    check(second_or_minus_one, n)
    check(cut_after_first, n)
    check(reversed_to_array, n)


def test_list_returned_to_python(balanced):
    head = build_list(4)
    assert isinstance(head, LinkedNode)
    assert head.data == 3
    assert head.next.data == 2
    assert head.next.next.next.data == 0
    assert head.next.next.next.next is None
    assert list_sum(head) == 6
    tail = head.next.next
    head.next = None  # Python drops two nodes; `tail` keeps the rest alive
    assert head.next is None and list_sum(head) == 3
    assert tail.data == 1 and list_sum(tail) == 1
    del head, tail


def test_list_built_in_python(balanced):
    a = LinkedNode(1, None)
    b = LinkedNode(2, a)
    c = b.prepend(3)
    assert c.next.next.data == 1 and c.next.next.next is None
    assert list_sum(c) == 6
    a.next = c  # a cycle: Numba does not collect them either
    a.next = None
    r = reverse(c)
    assert r.data == 1 and r.next.data == 2 and r.next.next.data == 3 and r.next.next.next is None
    del a, b, c, r


@pytest.mark.numba_skip("Numba frees a long chain recursively (its stack limits the length)")
def test_long_list_freed(balanced):
    assert list_length(100_000) == 100_000
    head = build_list(100_000)
    assert list_sum(head) == 100_000 * 99_999 // 2
    del head


@njit
def second_data(n):
    head = build_list(n)
    return head.next.data  # an optional instance used as one: checked


@pytest.mark.numba_skip("the exception raised for None.data")
def test_none_field_read(balanced):
    assert second_data(2) == 0
    with pytest.raises(TypeError, match="got None"):
        second_data(1)


# ---- a field of the class's own type (not optional) --------------------------

ring_type = deferred_type()


@jitclass([("value", types.int64), ("link", ring_type)])
class Ring:
    def __init__(self, value):
        self.value = value

    def follow(self):
        return self.link.value


ring_type.define(Ring.class_type.instance_type)


@njit
def ring_pair(x):
    a = Ring(x)
    b = Ring(x + 1)
    b.link = a
    return b.follow() + 10 * b.link.value + 100 * b.value


@pytest.mark.numba_skip("Numba 0.68 fails in LLVM on a non-optional field of the class's own type")
def test_self_typed_field(balanced):
    check(ring_pair, 3)
    b, a = Ring(5), Ring(6)
    b.link = a
    assert b.link.value == 6 and b.follow() == 6
    del a, b


@pytest.mark.numba_skip("hpcjit boxes a never assigned instance field as None")
def test_unassigned_instance_field_is_none(balanced):
    assert Ring(1).link is None


# ---- optional fields of other types: laid out as {valid, value} ---------------

@jitclass([("k", optional(types.int64)), ("arr", optional(types.float64[::1])), ("x", types.float64)])
class Maybe:
    def __init__(self, x):
        self.k = None
        self.arr = None
        self.x = x


@njit
def maybe_use(n):
    m = Maybe(1.5)
    s = 0.0
    if m.k is None and m.arr is None:
        s += 1.0
    m.k = n
    m.arr = np.arange(n) * 1.0
    m.arr = np.ones(n)  # the first array is released
    k = m.k
    a = m.arr
    if k is not None and a is not None:
        s += k + a.sum()
    m.arr = None
    return s + m.x


def test_optional_fields(balanced):
    check(maybe_use, 4)
    m = Maybe(2.0)
    assert m.k is None and m.arr is None and m.x == 2.0
    m.k = 3
    m.arr = np.arange(3.0)  # the field keeps the (temporary) ndarray alive
    junk = [np.full(3, 7.0) for _ in range(8)]
    assert m.k == 3 and list(m.arr) == [0.0, 1.0, 2.0] and m.x == 2.0
    del m, junk


# ---- a binary tree ----------------------------------------------------------

tree_node_type = deferred_type()


@jitclass([("data", types.int64), ("left", optional(tree_node_type)), ("right", optional(tree_node_type))])
class TreeNode:
    def __init__(self, data):
        self.data = data
        self.left = None
        self.right = None


tree_node_type.define(TreeNode.class_type.instance_type)


@njit
def tree_insert(node, data):
    if data < node.data:
        left = node.left
        if left is None:
            node.left = TreeNode(data)
        else:
            tree_insert(left, data)
    else:
        right = node.right
        if right is None:
            node.right = TreeNode(data)
        else:
            tree_insert(right, data)


@njit
def tree_sum(node):
    s = node.data
    left, right = node.left, node.right
    if left is not None:
        s += tree_sum(left)
    if right is not None:
        s += tree_sum(right)
    return s


@njit
def tree_depth(node):
    d = 0
    left, right = node.left, node.right
    if left is not None:
        d = tree_depth(left)
    if right is not None:
        d = max(d, tree_depth(right))
    return d + 1


@njit
def tree_inorder(node, out, i):
    left = node.left
    if left is not None:
        i = tree_inorder(left, out, i)
    out[i] = node.data
    i += 1
    right = node.right
    if right is not None:
        i = tree_inorder(right, out, i)
    return i


@njit
def build_tree(values):
    root = TreeNode(values[0])
    for k in range(1, values.size):
        tree_insert(root, values[k])
    return root


@njit
def sorted_by_tree(values):
    root = build_tree(values)
    out = np.empty(values.size, np.int64)
    tree_inorder(root, out, 0)
    return out, tree_sum(root), tree_depth(root)


NO_NARROWING = "Numba does not narrow an optional(node) after `is None`: node.left = ... on it fails to lower"


@pytest.mark.numba_skip(NO_NARROWING)
def test_tree(balanced):
    values = np.random.default_rng(7).permutation(50).astype(np.int64)
    got = check(sorted_by_tree, values)
    np.testing.assert_equal(got[0], np.arange(50))
    check(sorted_by_tree, np.array([3, 1, 2], np.int64))


def test_tree_walks_of_python_tree(balanced):
    tree = simple_tree()
    assert check(tree_sum, tree) == 15
    assert check(tree_depth, tree) == 3
    out = np.zeros(5, np.int64)
    assert check(tree_inorder, tree, out, 0) == 5
    tree_inorder(tree, out, 0)
    assert list(out) == [2, 1, 4, 3, 5]
    del tree


@pytest.mark.numba_skip(NO_NARROWING)
def test_tree_from_python(balanced):
    root = build_tree(np.array([5, 2, 8, 1], np.int64))
    assert root.data == 5 and root.left.data == 2 and root.right.data == 8
    assert root.left.left.data == 1 and root.left.right is None and root.right.left is None
    root.right.right = TreeNode(9)  # built in Python, linked in
    assert tree_sum(root) == 25 and tree_depth(root) == 3
    del root


# ---- stacks: of tree nodes (binarytree.py), and of deferred data (stack.py) --

stack_type = deferred_type()


@jitclass([("data", TreeNode.class_type.instance_type), ("next", optional(stack_type))])
class TreeStack:
    def __init__(self, data, next):
        self.data = data
        self.next = next


stack_type.define(TreeStack.class_type.instance_type)


@njit
def push(stack, data):
    return TreeStack(data, stack)


@njit
def pop(stack):
    return stack.next


@njit
def make_stack(data):
    return push(None, data)


@njit
def preorder(node):
    out = []
    stack = make_stack(node)
    while stack is not None:
        node = stack.data
        out.append(node.data)
        stack = pop(stack)
        if node.right is not None:
            stack = push(stack, node.right)
        if node.left is not None:
            stack = push(stack, node.left)
    return out


@njit
def inorder(node):
    out = []
    done = False
    current = node
    stack = None
    while not done:
        if current is not None:
            stack = push(stack, current)
            current = current.left
        else:
            if stack is not None:
                tos = stack.data
                out.append(tos.data)
                stack = pop(stack)
                current = tos.right
            else:
                done = True
    return out


def simple_tree():
    node = TreeNode(1)
    node.left = TreeNode(2)
    node.right = TreeNode(3)
    node.right.left = TreeNode(4)
    node.right.right = TreeNode(5)
    return node


def test_traversals_with_stack(balanced):
    tree = simple_tree()
    assert check(preorder, tree) == [1, 2, 3, 4, 5]
    assert check(inorder, tree) == [2, 1, 4, 3, 5]
    del tree


item_node_type = deferred_type()
item_data_type = deferred_type()


@jitclass([("data", item_data_type), ("next", optional(item_node_type))])
class ItemNode:
    def __init__(self, data):
        self.data = data
        self.next = None


item_node_type.define(ItemNode.class_type.instance_type)


@jitclass([("head", optional(item_node_type)), ("size", types.intp)])
class Stack:
    def __init__(self):
        self.head = None
        self.size = 0

    def push(self, data):
        new = ItemNode(data)
        new.next = self.head
        self.head = new
        self.size += 1

    def pop(self):
        old = self.head
        if old is None:
            raise ValueError("empty")
        else:
            self.head = old.next
            self.size -= 1
            return old.data


item_data_type.define(types.intp)


@njit
def pushpop(size):
    stack = Stack()
    for i in range(size):
        stack.push(i)
    out = []
    while stack.size > 0:
        out.append(stack.pop())
    return out


@njit
def pop_empty():
    stack = Stack()
    stack.push(1)
    a = stack.pop()
    return a + stack.pop()


def test_stack(balanced):
    assert check(pushpop, 24) == list(range(23, -1, -1))
    check(pushpop, 0)


@pytest.mark.numba_skip("Numba leaks the instances live when an exception is raised")
def test_stack_pop_empty(balanced):
    with pytest.raises(ValueError, match="empty"):
        pop_empty()
    s = Stack()
    s.push(1)
    s.push(2)
    assert s.pop() == 2 and s.size == 1 and s.head.data == 1
    assert s.pop() == 1 and s.head is None
    with pytest.raises(ValueError, match="empty"):
        s.pop()
    del s


# ---- the drop-in and diagnostics -------------------------------------------

@pytest.mark.numba_skip("runs hpcjit's drop-in")
def test_dropin_linked_list(tmp_path):
    script = tmp_path / "linked.py"
    script.write_text(
        "import numpy as np\n"
        "from numba import njit, int32, deferred_type, optional\n"
        "from numba.experimental import jitclass\n"
        "node_type = deferred_type()\n"
        "@jitclass([('data', int32), ('next', optional(node_type))])\n"
        "class Node:\n"
        "    def __init__(self, data, next):\n"
        "        self.data = data\n"
        "        self.next = next\n"
        "node_type.define(Node.class_type.instance_type)\n"
        "@njit\n"
        "def build(n):\n"
        "    head = Node(0, None)\n"
        "    for i in range(1, n):\n"
        "        head = Node(i, head)\n"
        "    return head\n"
        "h = build(3)\n"
        "print(h.data, h.next.data, h.next.next.next)\n"
        "del h\n"
        "from numba.core.runtime import rtsys\n"
        "s = rtsys.get_allocation_stats()\n"
        "print(s.alloc - s.free, s.mi_alloc - s.mi_free)\n")
    r = run_python(f"import runpy, sys; sys.argv = [{str(script)!r}]; "
                   f"from hpcjit import numba as _n; _n.install(); runpy.run_path({str(script)!r})")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "1", "None", "0", "0"]


undefined_type = deferred_type()


@jitclass([("data", types.int64), ("next", optional(undefined_type))])
class Orphan:
    def __init__(self, data):
        self.data = data
        self.next = None


@njit
def make_orphan():
    o = Orphan(1)  # orphan
    return o.data


@pytest.mark.numba_skip("hpcjit's message and location")
def test_undefined_deferred_type():
    with pytest.raises(hpcjit.TypingError, match="deferred_type.*never defined") as e:
        make_orphan()
    assert_located_in(__file__, e.value, "orphan")


@pytest.mark.numba_skip("hpcjit's type objects")
def test_deferred_type_object():
    d = deferred_type()
    o = optional(d)
    assert d.typecode is None and o.typecode is None
    d.define(types.int64)
    assert d.get() is types.int64 and o.typecode == "ol" and o == optional(types.int64)
    with pytest.raises(TypeError, match="already defined"):
        d.define(types.int32)
    with pytest.raises(TypeError, match="not defined"):
        deferred_type().get()
    assert hpcjit.types.deferred_type is hpcjit.deferred_type is hpcjit.types.DeferredType
