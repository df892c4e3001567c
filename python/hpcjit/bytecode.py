"""Source text for functions that have none (issue 11): a decompiler from
CPython 3.10, 3.11, 3.12 and 3.13 bytecode to the Python subset hpcjit
compiles.

Functions defined by exec() of a string, by `python - <<EOF` or in a
session that keeps no source have a code object but no text for inspect to
find.  Numba reads the bytecode; hpcjit has one front end, the parser of
Python text, so this module turns the code object back into equivalent
Python text, which then goes through the usual path.

    instructions (3.10's renamed as 3.11's, 3.13 superinstructions split,
    3.12 inlined comprehensions cut out and decompiled apart) -> basic
    blocks -> per-block symbolic execution (stack of
    ast expressions; values alive across a jump go through variables named
    _hj_v<block>_<slot>) -> short-circuit conditions folded into `and`/`or`
    -> while-loop rotation undone -> dominators and natural loops ->
    structured statements (if/elif/else, while, for/else, break, continue)
    -> text laid out so that each statement sits at its original line.

Every step either reproduces what CPython executes or raises DecompileError
(a located "cannot be reconstructed" error): control flow that cannot be
structured, opcodes outside the subset, try/with, generators.  Columns in
diagnostics are those of the reconstructed line; lines are the user's."""
import ast
import dis
import sys
import types as _pytypes

SUPPORTED = ((3, 10), (3, 11), (3, 12), (3, 13))
_PY = sys.version_info[:2]


class DecompileError(Exception):
    def __init__(self, msg, lineno=None):
        super().__init__(msg)
        self.lineno = lineno


# ---- stack markers (never become text) ---------------------------------------
class _Marker:
    __slots__ = ()


class _Null(_Marker):
    """PUSH_NULL / the NULL of LOAD_GLOBAL: the callable's companion."""


class _Iter(_Marker):
    """GET_ITER of `expr`: the iterator of a for loop."""
    __slots__ = ("expr",)

    def __init__(self, expr):
        self.expr = expr


class _Func(_Marker):
    """MAKE_FUNCTION of a nested code object."""
    __slots__ = ("code", "defaults", "kwdefaults", "line")

    def __init__(self, code, defaults, line, kwdefaults=None):
        self.code, self.defaults, self.line = code, defaults, line
        self.kwdefaults = kwdefaults


class _Closure(_Marker):
    """LOAD_CLOSURE, or a tuple of them (MAKE_FUNCTION's closure)."""


class _Acc(_Marker):
    """The list/set/dict a comprehension builds (BUILD_LIST 0 in <listcomp>)."""
    __slots__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind


class _UnpackItem(_Marker):
    """Item `k` of UNPACK_SEQUENCE: collected by the stores that follow."""
    __slots__ = ("group", "k")

    def __init__(self, group, k):
        self.group, self.k = group, k


class _Import(_Marker):
    """IMPORT_NAME (`import mod` / `from mod import ...`) or the IMPORT_FROM
    of `attr` on one: the STORE that follows makes the statement."""
    __slots__ = ("mod", "level", "fromlist", "attr")

    def __init__(self, mod, level, fromlist, attr=None):
        self.mod, self.level, self.fromlist, self.attr = mod, level, fromlist, attr


class _Saved(_Marker):
    """LOAD_FAST_AND_CLEAR (3.12+): the value of `name` an inlined
    comprehension saves; the STORE_FAST that restores it is no statement."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _Append(ast.stmt):
    """A comprehension's LIST_APPEND/SET_ADD/MAP_ADD (value, key)."""
    _fields = ("value", "key")


_BINOPS = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
           "%": ast.Mod, "**": ast.Pow, "@": ast.MatMult, "<<": ast.LShift, ">>": ast.RShift,
           "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor}
_CMPOPS = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_POSITIVE": ast.UAdd, "UNARY_NOT": ast.Not,
          "UNARY_INVERT": ast.Invert}
# END_FOR: the exhausted edge of FOR_ITER already drops the iterator (3.12+);
# TO_BOOL: a jump tests the truth of the value itself (3.13)
_NOPS = {"RESUME", "NOP", "PRECALL", "MAKE_CELL", "COPY_FREE_VARS", "EXTENDED_ARG", "CACHE",
         "END_FOR", "TO_BOOL", "NOT_TAKEN"}
_ENDS = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}
_CONVERSIONS = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}
_BUILDS = {"BUILD_LIST": "list", "BUILD_SET": "set", "BUILD_MAP": "dict"}


def _name(ident, stable=False):
    n = ast.Name(id=ident, ctx=ast.Load())
    n._hj_stable = stable
    return n


def _const(value):
    c = ast.Constant(value=value, kind=None)
    c._hj_stable = True
    return c


def _not(e):
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return e.operand
    return ast.UnaryOp(op=ast.Not(), operand=e)


def _is_temp(e):
    return isinstance(e, ast.Name) and e.id.startswith("_hj_")


def _stable(e):
    """Evaluating `e` later gives the same value: constants, globals,
    attributes of those, temporaries."""
    if isinstance(e, ast.Constant) or _is_temp(e):
        return True
    if isinstance(e, ast.Name):
        return getattr(e, "_hj_stable", False)
    if isinstance(e, ast.Attribute):
        return _stable(e.value)
    return False


def _dupable(e):
    """Evaluating `e` twice is as evaluating it once (COPY)."""
    if isinstance(e, (ast.Constant, ast.Name)) or _stable(e):
        return True
    if isinstance(e, ast.Slice):
        return all(x is None or _dupable(x) for x in (e.lower, e.upper, e.step))
    if isinstance(e, ast.Tuple):
        return all(_dupable(x) for x in e.elts)
    if isinstance(e, ast.BinOp):  # arithmetic of names: no side effect
        return _dupable(e.left) and _dupable(e.right)
    if isinstance(e, ast.UnaryOp):
        return _dupable(e.operand)
    return False


def _names_read(e):
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


class _Block:
    def __init__(self, idx, instrs):
        self.id = idx
        self.instrs = instrs
        self.offset = instrs[0].offset
        self.succs = []      # cond: [true, false]; for: [body, exhausted]
        self.preds = []
        self.kind = None     # "fall", "jump", "cond", "for", "end"
        self.cond = None
        self.line = None     # the terminator's line
        self.entry = None    # the stack on entry (None: unreachable)
        self.outs = {}       # successor id -> stack on that edge
        self.stmts = []
        self.iter_var = None  # for: the variable the loop assigns


def _line(ins, default):
    if _PY < (3, 11):  # _instructions put each instruction's line there
        return ins.starts_line or default
    pos = getattr(ins, "positions", None)
    if pos is not None and pos.lineno is not None:
        return pos.lineno
    return default


def _target_ok(ins):
    return ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs


def _synth(ins, opname, argval, offset=None):
    """An instruction made from `ins` (same line): a half of a 3.13
    superinstruction, or the frame of an inlined comprehension."""
    return ins._replace(opname=opname, opcode=dis.opmap.get(opname, -1), arg=None, argval=argval,
                        argrepr=str(argval), offset=ins.offset if offset is None else offset)


_BINARY310 = {"ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "TRUE_DIVIDE": "/", "FLOOR_DIVIDE": "//",
              "MODULO": "%", "POWER": "**", "MATRIX_MULTIPLY": "@", "LSHIFT": "<<", "RSHIFT": ">>",
              "AND": "&", "OR": "|", "XOR": "^"}
_TRY310 = {"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "POP_EXCEPT", "JUMP_IF_NOT_EXC_MATCH"}


def _instructions310(code):
    """3.10's instructions in the names of 3.11: BINARY_ADD/INPLACE_ADD as
    BINARY_OP `+`/`+=`, DUP_TOP as COPY 1, JUMP_ABSOLUTE as JUMP_FORWARD or
    JUMP_BACKWARD; each with its line in starts_line."""
    out = []
    line = code.co_firstlineno
    for i in dis.get_instructions(code):
        line = i.starts_line or line
        i = i._replace(starts_line=line)
        op = i.opname
        if op == "EXTENDED_ARG":
            continue
        if op in _TRY310:
            raise DecompileError("try/except, with and generators are not reconstructed from bytecode",
                                 line)
        kind, _, what = op.partition("_")
        if kind in ("BINARY", "INPLACE") and what in _BINARY310:
            sym = _BINARY310[what] + ("=" if kind == "INPLACE" else "")
            i = i._replace(opname="BINARY_OP", argrepr=sym)
        elif op == "DUP_TOP":
            i = i._replace(opname="COPY", arg=1)
        elif op == "DUP_TOP_TWO":
            out.append(i._replace(opname="COPY", arg=2))
            i = i._replace(opname="COPY", arg=2, offset=i.offset + 1)
        elif op == "JUMP_ABSOLUTE":  # the opcode stays: a jump (_target_ok)
            i = i._replace(opname="JUMP_BACKWARD" if i.argval <= i.offset else "JUMP_FORWARD")
        out.append(i)
    return out


def _instructions(code):
    """The instructions of `code` as the decompiler reads them: no CACHE or
    EXTENDED_ARG; 3.13's LOAD_FAST_LOAD_FAST, STORE_FAST_STORE_FAST and
    STORE_FAST_LOAD_FAST as two instructions (the second at an odd offset,
    which no jump names); 3.13's END_FOR + POP_TOP as one END_FOR."""
    if _PY < (3, 11):
        return _instructions310(code)
    out = []
    for i in dis.get_instructions(code):
        op = i.opname
        if op in ("CACHE", "EXTENDED_ARG"):
            continue
        if op in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"):
            first, second = op.split("_FAST_", 1)
            out.append(_synth(i, first + "_FAST", i.argval[0]))
            out.append(_synth(i, second if second.endswith("_FAST") else second + "_FAST",
                              i.argval[1], i.offset + 1))
            continue
        if op == "POP_TOP" and _PY >= (3, 13) and out and out[-1].opname == "END_FOR" and \
                not i.is_jump_target:
            continue
        out.append(i)
    return _inline_comprehensions(out)


def _inline_comprehensions(ins):
    """3.12+ (PEP 709) inlines a list/set/dict comprehension:
        <iterable> GET_ITER [LOAD_FAST_AND_CLEAR x ... SWAP n]
        BUILD_LIST 0  SWAP 2  FOR_ITER end  <body>  end: END_FOR
        [SWAP n  STORE_FAST x ...]
    The span BUILD_LIST .. END_FOR becomes one _COMPREHENSION instruction
    whose argval is the comprehension as a code body of its own (BUILD_LIST,
    LOAD_FAST .0, the loop, RETURN_VALUE), the shape 3.11's <listcomp>
    code objects have; the saves and restores around it are _Saved
    markers."""
    out = []
    k = 0
    while k < len(ins):
        i = ins[k]
        if (i.opname in _BUILDS and i.arg == 0 and k + 2 < len(ins) and
                ins[k + 1].opname == "SWAP" and ins[k + 1].arg == 2 and
                ins[k + 2].opname == "FOR_ITER"):
            end = next((j for j in range(k + 3, len(ins)) if ins[j].offset == ins[k + 2].argval), None)
            if end is None or ins[end].opname != "END_FOR":
                raise DecompileError("a comprehension of an unexpected shape", _line(i, None))
            body = [i, _synth(ins[k + 1], "LOAD_FAST", ".0")] + ins[k + 2:end + 1]
            body.append(_synth(ins[end], "RETURN_VALUE", None, ins[end].offset + 1))
            out.append(_synth(i, "_COMPREHENSION", body))
            k = end + 1
            continue
        out.append(i)
        k += 1
    return out


def _cleanup_only_handlers(code, ins):
    """Whether every exception handler of `code` only restores what an
    inlined comprehension saved and re-raises (3.12+): such code has no
    try/with of its own, and its handlers are never reached otherwise."""
    try:
        entries = dis._parse_exception_table(code)
    except Exception:
        return False
    at = {i.offset: n for n, i in enumerate(ins)}
    for e in entries:
        n = at.get(e.target)
        if n is None:
            return False
        while n < len(ins) and ins[n].opname in ("SWAP", "POP_TOP", "STORE_FAST"):
            n += 1
        if n >= len(ins) or ins[n].opname != "RERAISE":
            return False
    return True


class _Decompiler:
    def __init__(self, code, comp=False, instrs=None):
        self.code = code
        self.comp = comp  # a comprehension's code object, or an inlined one
        self.instrs = instrs  # an inlined comprehension's (else: the code's)
        self.ntemp = 0
        self.line = code.co_firstlineno if instrs is None else _line(instrs[0], code.co_firstlineno)

    def fail(self, what, line=None):
        raise DecompileError(what, line if line is not None else self.line)

    # ---- blocks -------------------------------------------------------------
    def blocks(self):
        code = self.code
        if self.instrs is not None:
            ins = self.instrs
        else:
            ins = _instructions(code)
            if getattr(code, "co_exceptiontable", b"") and not (
                    _PY >= (3, 12) and _cleanup_only_handlers(code, ins)):
                self.fail("try/except, with and generators are not reconstructed from bytecode")
        leaders = {ins[0].offset}
        jumps = set()
        for k, i in enumerate(ins):
            if "JUMP" in i.opname or i.opname == "FOR_ITER":
                if not _target_ok(i):
                    self.fail(f"unexpected jump {i.opname}", _line(i, None))
                leaders.add(i.argval)
                jumps.add(i.offset)
                if k + 1 < len(ins):
                    leaders.add(ins[k + 1].offset)
            elif i.opname in _ENDS and k + 1 < len(ins):
                leaders.add(ins[k + 1].offset)
        blocks, cur = [], []
        for i in ins:
            if i.offset in leaders and cur:
                blocks.append(_Block(len(blocks), cur))
                cur = []
            cur.append(i)
        if cur:
            blocks.append(_Block(len(blocks), cur))
        at = {b.offset: b for b in blocks}
        for n, b in enumerate(blocks):
            last = b.instrs[-1]
            nxt = blocks[n + 1] if n + 1 < len(blocks) else None
            op = last.opname
            b.line = _line(last, None)
            if op in _ENDS:
                b.kind = "end"
            elif op in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP",
                        "JUMP_NO_INTERRUPT"):
                b.kind, b.succs = "jump", [at[last.argval]]
            elif op == "FOR_ITER":
                b.kind, b.succs = "for", [nxt, at[last.argval]]
            elif "JUMP" in op:
                tgt = at[last.argval]
                b.kind = "cond"
                if op.endswith("IF_TRUE") or op.endswith("NONE") or op == "JUMP_IF_TRUE_OR_POP":
                    b.succs = [tgt, nxt]
                else:  # IF_FALSE, IF_NOT_NONE, JUMP_IF_FALSE_OR_POP
                    b.succs = [nxt, tgt]
            else:
                if nxt is None:
                    self.fail("the bytecode runs off its end")
                b.kind, b.succs = "fall", [nxt]
            if any(s is None for s in b.succs):
                self.fail("the bytecode runs off its end")
        if _PY >= (3, 12):
            # 3.12 ends a rotated while loop with `POP_JUMP_IF_FALSE exit;
            # JUMP_BACKWARD body` (3.11: POP_JUMP_BACKWARD_IF_TRUE body):
            # branch to the body directly, as 3.11 does
            for b in blocks:
                b.succs = [_through_back_jumps(s) for s in b.succs]
        self.bl = blocks
        return blocks

    # ---- symbolic execution -------------------------------------------------
    def temp(self):
        self.ntemp += 1
        return f"_hj_t{self.ntemp}"

    def run_blocks(self):
        order = self.rpo()
        self.bl[0].entry = []
        for b in order:
            if b.entry is None:
                preds = [p for p in b.preds if b.id in p.outs]
                if not preds:
                    continue
                b.entry = self.merge(b, [p.outs[b.id] for p in preds])
            self.execute(b)
        # back edges must bring what the forward edges agreed on
        for b in order:
            for s in b.succs:
                if s.entry is None or b.id not in b.outs:
                    continue
                got, want = b.outs[s.id], s.entry
                if len(got) != len(want):
                    self.fail("the stack depth differs between two paths", s.line)

    def merge(self, b, stacks):
        n = len(stacks[0])
        if any(len(s) != n for s in stacks):
            self.fail("the stack depth differs between two paths", _line(b.instrs[0], None))
        entry = []
        b.slotvars = {}
        for k in range(n):
            items = [s[k] for s in stacks]
            first = items[0]
            if isinstance(first, _Marker):
                if not all(type(x) is type(first) for x in items):
                    self.fail("a value whose kind differs between two paths", _line(b.instrs[0], None))
                entry.append(first)
            elif len(items) == 1 or (all(not isinstance(x, _Marker) for x in items) and
                                     _stable(first) and
                                     all(ast.dump(x) == ast.dump(first) for x in items)):
                entry.append(first)
            else:
                if any(isinstance(x, _Marker) for x in items):
                    self.fail("a value whose kind differs between two paths", _line(b.instrs[0], None))
                v = f"_hj_v{b.id}_{k}"
                b.slotvars[k] = v
                entry.append(_name(v))
        return entry

    def edge_stmts(self, p, s):
        """Statements that carry the values of p's stack into s's slot variables."""
        slots = getattr(s, "slotvars", {})
        if not slots or s.id not in p.outs:
            return []
        out = p.outs[s.id]
        tg, vals = [], []
        for k, v in sorted(slots.items()):
            e = out[k]
            if isinstance(e, ast.Name) and e.id == v:
                continue
            tg.append(ast.Name(id=v, ctx=ast.Store()))
            vals.append(e)
        if not tg:
            return []
        if len(tg) == 1:
            st = ast.Assign(targets=tg, value=vals[0])
        else:
            st = ast.Assign(targets=[ast.Tuple(elts=tg, ctx=ast.Store())],
                            value=ast.Tuple(elts=vals, ctx=ast.Load()))
        st.lineno = p.line or self.line
        return [st]

    def execute(self, b):
        st = list(b.entry)
        out = b.stmts
        ins_list = b.instrs
        kw = None
        line = _line(ins_list[0], self.line)
        code = self.code

        def pop():
            if not st:
                self.fail("the stack underflows", line)
            return st.pop()

        def val(x):
            if isinstance(x, _Func) and x.code.co_name == "<lambda>":
                return self.lambda_expr(x)  # a lambda used as a value: f(lambda v: v)
            if isinstance(x, _Marker):
                self.fail("an unexpected value on the stack", line)
            return x

        def spill(stores=(), keep=None):
            """Evaluate pending stack values before a statement runs."""
            for k, e in enumerate(st):
                if isinstance(e, _Marker) or e is keep:
                    continue
                if isinstance(e, ast.Constant) or _is_temp(e):
                    continue
                if isinstance(e, ast.Name) and e.id not in stores:
                    continue
                if _stable(e) and not (_names_read(e) & set(stores)):
                    continue
                if isinstance(e, (ast.Slice, ast.Tuple)) and not (_names_read(e) & set(stores)):
                    st[k] = self.materialize(e, out, line)
                    continue
                t = self.temp()
                a = ast.Assign(targets=[ast.Name(id=t, ctx=ast.Store())], value=e)
                a.lineno = line
                out.append(a)
                st[k] = _name(t)

        def emit(s, stores=()):
            spill(stores)
            s.lineno = line
            out.append(s)

        def store(target, value, stores):
            """target = value; augmented when value is an in-place op of target."""
            if isinstance(value, _UnpackItem):
                g = value.group
                g["targets"][value.k] = target
                g["stores"] |= set(stores)
                if all(t is not None for t in g["targets"]):
                    emit(ast.Assign(targets=[ast.Tuple(elts=g["targets"], ctx=ast.Store())],
                                    value=g["value"]), g["stores"])
                return
            if isinstance(value, _Func):
                self.store_func(target, value, emit, stores)
                return
            value = val(value)
            if getattr(value, "_hj_inplace", False):
                if ast.dump(value.left) != ast.dump(target).replace("Store()", "Load()"):
                    self.fail("an in-place operator whose result is stored elsewhere", line)
                emit(ast.AugAssign(target=target, op=value.op, value=value.right), stores)
                return
            emit(ast.Assign(targets=[target], value=value), stores)

        k = 0
        n_ins = len(ins_list)
        while k < n_ins:
            ins = ins_list[k]
            k += 1
            op = ins.opname
            line = _line(ins, line)
            self.line = line
            if op in _NOPS:
                continue
            if op == "LOAD_CONST":
                c = ins.argval
                if isinstance(c, _pytypes.CodeType):
                    st.append(c)  # MAKE_FUNCTION follows
                else:
                    st.append(_const(c))
            elif op == "LOAD_FAST_AND_CLEAR":
                st.append(_Saved(ins.argval))
            elif op == "_COMPREHENSION":
                it = pop()
                if not isinstance(it, _Iter):
                    self.fail("a comprehension over an unknown iterator", line)
                st.append(self.inline_comprehension(ins.argval, it.expr))
            elif op in ("LOAD_FAST", "LOAD_FAST_CHECK"):
                if self.comp and ins.argval == ".0":  # a comprehension's iterator
                    st.append(_Iter(_name(".0")))
                else:
                    st.append(_name(ins.argval))
            elif op == "LOAD_GLOBAL":
                if ins.arg & 1 and _PY >= (3, 11):
                    st.append(_Null())
                st.append(_name(ins.argval, stable=True))
            elif op in ("LOAD_DEREF", "LOAD_CLASSDEREF"):
                st.append(_name(ins.argval, stable=ins.argval in code.co_freevars and
                                ins.argval not in _stored_derefs(code)))
            elif op == "LOAD_CLOSURE":
                st.append(_Closure())
            elif op == "LOAD_ASSERTION_ERROR":
                ae = _name("AssertionError", stable=True)
                ae._hj_assert = True
                st.append(ae)
            elif op == "LOAD_ATTR" and not (_PY >= (3, 12) and ins.arg & 1):
                o = val(pop())
                a = ast.Attribute(value=o, attr=ins.argval, ctx=ast.Load())
                st.append(a)
            elif op == "LOAD_SUPER_ATTR":  # 3.12+: super().name, super(C, o).name
                o, cls, sup = val(pop()), val(pop()), val(pop())
                args = [cls, o] if ins.arg & 2 else []
                st.append(ast.Attribute(value=ast.Call(func=sup, args=args, keywords=[]),
                                        attr=ins.argval, ctx=ast.Load()))
                if ins.arg & 1:
                    st.append(_Null())
            elif op in ("LOAD_METHOD", "LOAD_ATTR"):  # LOAD_ATTR: 3.12+ with the method bit
                o = val(pop())
                st.append(ast.Attribute(value=o, attr=ins.argval, ctx=ast.Load()))
                st.append(_Null())
            elif op == "PUSH_NULL":
                st.append(_Null())
            elif op == "KW_NAMES":
                kw = ins.argval if isinstance(ins.argval, tuple) else code.co_consts[ins.arg]
            elif op in ("CALL", "CALL_KW", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD"):
                nargs = ins.arg
                if op in ("CALL_KW", "CALL_FUNCTION_KW"):  # 3.13, 3.10: the names are on the stack
                    names = pop()
                    if not (isinstance(names, ast.Constant) and isinstance(names.value, tuple)):
                        self.fail("keyword names that are not a constant", line)
                    kw = names.value
                if op in ("CALL_FUNCTION", "CALL_FUNCTION_KW"):  # 3.10: no NULL below the callable
                    if nargs == 1 and len(st) >= 2 and isinstance(st[-1], _Iter) and \
                            isinstance(st[-2], _Func):
                        nargs = 0  # a comprehension's call, as 3.11's CALL 0
                    elif len(st) > nargs:
                        st.insert(len(st) - nargs - 1, _Null())
                args = [pop() for _ in range(nargs)][::-1]
                a, f = pop(), pop()
                # 3.11: [NULL, callable, args] or [callable, self, args]
                if isinstance(f, _Null):
                    callee = a
                elif isinstance(a, _Null):
                    callee = f
                elif isinstance(f, _Func) and isinstance(a, _Iter) and not args:
                    st.append(self.comprehension(f, a.expr))
                    kw = None
                    continue
                else:
                    callee, args = f, [a] + args
                callee = val(callee)
                kws = []
                if kw:
                    nk = len(kw)
                    kws = [ast.keyword(arg=name, value=val(v)) for name, v in zip(kw, args[-nk:])]
                    args = args[:-nk]
                    kw = None
                st.append(ast.Call(func=callee, args=[val(x) for x in args], keywords=kws))
            elif op == "CALL_FUNCTION_EX":
                kwargs = val(pop()) if ins.arg & 1 else None
                args = val(pop())
                callee = pop()
                if isinstance(callee, _Null):
                    callee = pop()
                elif isinstance(st[-1] if st else None, _Null):
                    pop()
                callee = val(callee)
                if isinstance(args, ast.Tuple):
                    cargs = args.elts
                elif isinstance(args, ast.Constant) and isinstance(args.value, tuple):
                    cargs = [_const(x) for x in args.value]
                else:
                    cargs = [ast.Starred(value=args, ctx=ast.Load())]
                kws = [ast.keyword(arg=None, value=kwargs)] if kwargs is not None else []
                st.append(ast.Call(func=callee, args=cargs, keywords=kws))
            elif op == "BINARY_OP":
                r, l_ = val(pop()), val(pop())
                sym = ins.argrepr
                inplace = sym.endswith("=")
                e = ast.BinOp(left=l_, op=_BINOPS[sym.rstrip("=")](), right=r)
                e._hj_inplace = inplace
                st.append(e)
            elif op in _UNARY:
                st.append(ast.UnaryOp(op=_UNARY[op](), operand=val(pop())))
            elif op == "CALL_INTRINSIC_1":  # 3.12+
                if ins.argrepr == "INTRINSIC_UNARY_POSITIVE":
                    st.append(ast.UnaryOp(op=ast.UAdd(), operand=val(pop())))
                elif ins.argrepr == "INTRINSIC_LIST_TO_TUPLE":
                    lst = val(pop())
                    if not isinstance(lst, ast.List):
                        self.fail("list unpacking", line)
                    st.append(ast.Tuple(elts=lst.elts, ctx=ast.Load()))
                else:
                    self.fail(f"the intrinsic {ins.argrepr}", line)
            elif op in ("FORMAT_VALUE", "CONVERT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC"):
                # f-strings: FORMAT_VALUE (3.11, 3.12); CONVERT_VALUE then
                # FORMAT_SIMPLE or FORMAT_WITH_SPEC (3.13)
                flags = ins.arg or 0
                has_spec = (op == "FORMAT_VALUE" and flags & 4) or op == "FORMAT_WITH_SPEC"
                spec = val(pop()) if has_spec else None
                v = val(pop())
                if op == "CONVERT_VALUE":
                    fv = ast.FormattedValue(value=v, conversion=_CONVERSIONS.get(flags, -1), format_spec=None)
                    fv._hj_open = True
                    st.append(fv)
                    continue
                if op == "FORMAT_VALUE":
                    fv = ast.FormattedValue(value=v, conversion=_CONVERSIONS[flags & 3], format_spec=None)
                elif isinstance(v, ast.FormattedValue) and getattr(v, "_hj_open", False):
                    fv, fv._hj_open = v, False
                else:
                    fv = ast.FormattedValue(value=v, conversion=-1, format_spec=None)
                if spec is not None:
                    fv.format_spec = _joined([spec], line, self)
                st.append(ast.JoinedStr(values=[fv]))
            elif op == "BUILD_STRING":
                parts = [val(pop()) for _ in range(ins.arg)][::-1]
                st.append(_joined(parts, line, self))
            elif op == "COMPARE_OP":
                r, l_ = val(pop()), val(pop())
                st.append(ast.Compare(left=l_, ops=[_CMPOPS[ins.argval]()], comparators=[r]))
            elif op == "IS_OP":
                r, l_ = val(pop()), val(pop())
                st.append(ast.Compare(left=l_, ops=[ast.IsNot() if ins.arg else ast.Is()], comparators=[r]))
            elif op == "CONTAINS_OP":
                r, l_ = val(pop()), val(pop())
                st.append(ast.Compare(left=l_, ops=[ast.NotIn() if ins.arg else ast.In()], comparators=[r]))
            elif op == "BINARY_SUBSCR":
                i_, o = val(pop()), val(pop())
                st.append(ast.Subscript(value=o, slice=i_, ctx=ast.Load()))
            elif op in ("BINARY_SLICE", "STORE_SLICE"):  # 3.12+: o[lo:hi]
                hi, lo, o = val(pop()), val(pop()), val(pop())
                sl = ast.Slice(lower=None if _is_none(lo) else lo, upper=None if _is_none(hi) else hi,
                               step=None)
                if op == "BINARY_SLICE":
                    st.append(ast.Subscript(value=o, slice=sl, ctx=ast.Load()))
                else:
                    v = pop()
                    store(ast.Subscript(value=o, slice=sl, ctx=ast.Store()), v, set())
            elif op == "BUILD_SLICE":
                parts = [val(pop()) for _ in range(ins.arg)][::-1]
                parts = [None if isinstance(p, ast.Constant) and p.value is None else p for p in parts]
                st.append(ast.Slice(lower=parts[0], upper=parts[1], step=parts[2] if len(parts) > 2 else None))
            elif op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET"):
                items = [pop() for _ in range(ins.arg)][::-1]
                if op == "BUILD_TUPLE" and items and all(isinstance(x, _Closure) for x in items):
                    st.append(_Closure())
                    continue
                if self.comp and op != "BUILD_TUPLE" and not items and self.acc is None:
                    self.acc = _Acc("list" if op == "BUILD_LIST" else "set")
                    st.append(self.acc)
                    continue
                items = [val(x) for x in items]
                cls = {"BUILD_TUPLE": ast.Tuple, "BUILD_LIST": ast.List, "BUILD_SET": ast.Set}[op]
                st.append(cls(elts=items, ctx=ast.Load()) if cls is not ast.Set else ast.Set(elts=items))
            elif op == "BUILD_MAP":
                items = [val(pop()) for _ in range(2 * ins.arg)][::-1]
                if self.comp and not items and self.acc is None:
                    self.acc = _Acc("dict")
                    st.append(self.acc)
                    continue
                st.append(ast.Dict(keys=items[0::2], values=items[1::2]))
            elif op == "BUILD_CONST_KEY_MAP":
                keys = val(pop())
                vals = [val(pop()) for _ in range(ins.arg)][::-1]
                st.append(ast.Dict(keys=[_const(x) for x in keys.value], values=vals))
            elif op in ("LIST_EXTEND", "SET_UPDATE"):
                it = val(pop())
                tgt = st[-ins.arg]
                if not isinstance(tgt, (ast.List, ast.Set)) or not (
                        isinstance(it, ast.Constant) and isinstance(it.value, (tuple, frozenset))):
                    self.fail("list or set unpacking", line)
                tgt.elts.extend(_const(x) for x in it.value)
            elif op == "LIST_TO_TUPLE":
                lst = val(pop())
                st.append(ast.Tuple(elts=lst.elts, ctx=ast.Load()))
            elif op in ("LIST_APPEND", "SET_ADD", "MAP_ADD"):
                if op == "MAP_ADD":
                    v, key = val(pop()), val(pop())
                else:
                    v, key = val(pop()), None
                if not isinstance(st[-ins.arg] if len(st) >= ins.arg else None, _Acc):
                    self.fail("a list/set/dict append outside a comprehension", line)
                emit(_Append(value=v, key=key))
            elif op == "GET_ITER":
                st.append(_Iter(val(pop())))
            elif op == "UNPACK_SEQUENCE":
                e = val(pop())
                g = {"value": e, "targets": [None] * ins.arg, "stores": set()}
                for j in range(ins.arg - 1, -1, -1):
                    st.append(_UnpackItem(g, j))
            elif op == "IMPORT_NAME":
                fromlist, level = val(pop()), val(pop())
                st.append(_Import(ins.argval, getattr(level, "value", 0) or 0, getattr(fromlist, "value", None)))
            elif op == "IMPORT_FROM":
                base = st[-1] if st and isinstance(st[-1], _Import) else None
                if base is None:
                    self.fail("an IMPORT_FROM of an unexpected shape", line)
                st.append(_Import(base.mod, base.level, base.fromlist, ins.argval))
            elif op in ("STORE_FAST", "STORE_DEREF") and st and isinstance(st[-1], _Import):
                v = pop()
                name = ins.argval
                if v.attr is None:  # import a.b (binds a) / import a
                    top = v.mod.split(".")[0]
                    emit(ast.Import(names=[ast.alias(name=v.mod, asname=None if name == top else name)]), {name})
                elif v.fromlist is None:  # import a.b as c: IMPORT_FROM b on a
                    emit(ast.Import(names=[ast.alias(name=v.mod, asname=name)]), {name})
                else:
                    emit(ast.ImportFrom(module=v.mod or None, level=v.level,
                                        names=[ast.alias(name=v.attr, asname=None if name == v.attr else name)]),
                         {name})
            elif op in ("STORE_FAST", "STORE_DEREF"):
                v = pop()
                name = ins.argval
                if isinstance(v, _Saved):  # an inlined comprehension restores name
                    if v.name != name:
                        self.fail("a comprehension of an unexpected shape", line)
                    continue
                # consecutive stores of values computed before: a, b = x, y
                group = [(name, v)]
                j = k
                while (j < n_ins and ins_list[j].opname == op and st and
                       not isinstance(st[-1], _Marker) and not isinstance(v, _Marker)):
                    group.append((ins_list[j].argval, st.pop()))
                    j += 1
                names = [g_[0] for g_ in group]
                if len(group) > 1 and len(set(names)) == len(names) and not any(
                        getattr(x, "_hj_inplace", False) for _, x in group):
                    k = j
                    group.reverse()
                    emit(ast.Assign(targets=[ast.Tuple(elts=[ast.Name(id=n_, ctx=ast.Store()) for n_, _ in group],
                                                       ctx=ast.Store())],
                                    value=ast.Tuple(elts=[x for _, x in group], ctx=ast.Load())), set(names))
                else:
                    for _, x in group[1:][::-1]:
                        st.append(x)
                    store(ast.Name(id=name, ctx=ast.Store()), v, {name})
            elif op in ("STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME", "STORE_ATTR") and op != "STORE_ATTR":
                self.fail(f"assigning the global '{ins.argval}'", line)
            elif op == "STORE_ATTR":
                o = val(pop())
                v = pop()
                store(ast.Attribute(value=o, attr=ins.argval, ctx=ast.Store()), v, set())
            elif op == "STORE_SUBSCR":
                i_, o = val(pop()), val(pop())
                v = pop()
                store(ast.Subscript(value=o, slice=i_, ctx=ast.Store()), v, set())
            elif op == "DELETE_SUBSCR":
                i_, o = val(pop()), val(pop())
                emit(ast.Delete(targets=[ast.Subscript(value=o, slice=i_, ctx=ast.Del())]))
            elif op in ("DELETE_FAST", "DELETE_DEREF"):
                emit(ast.Delete(targets=[ast.Name(id=ins.argval, ctx=ast.Del())]), {ins.argval})
            elif op == "POP_TOP":
                v = pop()
                if isinstance(v, _Marker) or isinstance(v, (ast.Name, ast.Constant)):
                    continue
                emit(ast.Expr(value=v))
            elif op == "COPY":
                v = st[-ins.arg]
                if isinstance(v, _Marker):
                    self.fail("copying a stack marker", line)
                if not _dupable(v):
                    # the slots below run first
                    idx = len(st) - ins.arg
                    saved = st[idx + 1:]
                    del st[idx:]
                    spill()
                    st.append(self.materialize(v, out, line))
                    st.extend(saved)
                    v = st[-ins.arg]
                st.append(v)
            elif op in ("SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):  # ROT_*: 3.10
                n_ = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(op) or ins.arg
                if len(st) < n_:
                    self.fail("the stack underflows", line)
                # values that may have effects keep their order: a, b = f(), g()
                if sum(not isinstance(x, _Marker) and not _dupable(x) for x in st[-n_:]) >= 2:
                    spill()
                if op == "SWAP":
                    st[-1], st[-n_] = st[-n_], st[-1]
                else:
                    st[-n_:] = [st[-1]] + st[-n_:-1]
            elif op == "MAKE_FUNCTION":
                c = pop()
                if _PY < (3, 11):  # 3.10: the qualified name above the code
                    c = pop()
                if not isinstance(c, _pytypes.CodeType):
                    self.fail("MAKE_FUNCTION of a computed code object", line)
                flags = ins.arg or 0  # 3.13: none; SET_FUNCTION_ATTRIBUTE follows
                if flags & 8:
                    pop()
                if flags & 4:
                    pop()
                kwdefaults = val(pop()) if flags & 2 else None
                defaults = val(pop()) if flags & 1 else None
                st.append(_Func(c, defaults, line, kwdefaults))
            elif op == "SET_FUNCTION_ATTRIBUTE":  # 3.13
                f, v = pop(), pop()
                if not isinstance(f, _Func):
                    self.fail("a function attribute of an unknown function", line)
                if ins.arg == 1:
                    f.defaults = val(v)
                elif ins.arg == 2:
                    f.kwdefaults = val(v)
                st.append(f)
            elif op == "RETURN_CONST":  # 3.12+
                emit(ast.Return(value=_const(ins.argval)))
            elif op == "RETURN_VALUE":
                v = pop()
                if isinstance(v, _Acc):
                    out.append(ast.Return(value=_name("_hj_acc")))
                    out[-1].lineno = line
                else:
                    emit(ast.Return(value=val(v)))
            elif op == "RAISE_VARARGS":
                if ins.arg == 0:
                    emit(ast.Raise(exc=None, cause=None))
                else:
                    cause = val(pop()) if ins.arg == 2 else None
                    exc = val(pop())
                    r = ast.Raise(exc=exc, cause=cause)
                    # `assert test, msg`: `if not test: raise AssertionError(msg)`
                    if getattr(exc, "_hj_assert", False):
                        r._hj_assert = None
                    elif isinstance(exc, ast.Call) and getattr(exc.func, "_hj_assert", False) and \
                            len(exc.args) == 1 and not exc.keywords:
                        r._hj_assert = exc.args[0]
                    emit(r)
            elif op == "FOR_ITER":
                if not st or not isinstance(st[-1], _Iter):
                    self.fail("a for loop over an unknown iterator", line)
                spill()
                b.iter_var = f"_hj_i{b.id}"
                b.outs[b.succs[0].id] = st + [_name(b.iter_var)]
                b.outs[b.succs[1].id] = st[:-1]
                return
            elif "JUMP" in op:
                if b.kind == "jump":
                    b.outs[b.succs[0].id] = list(st)
                    return
                if op.startswith("POP_JUMP"):
                    c = val(pop())
                    spill()
                    if op.endswith("NONE"):
                        c = ast.Compare(left=c, ops=[ast.IsNot() if "NOT_NONE" in op else ast.Is()],
                                        comparators=[_const(None)])
                    if b.succs[0] is b.succs[1]:
                        # both sides jump back to one place (3.12+, the
                        # JUMP_BACKWARDs followed): `if c: pass`
                        emit(ast.If(test=c, body=[_stmt(ast.Pass(), None)], orelse=[]))
                        b.kind, b.succs = "jump", b.succs[:1]
                        b.outs[b.succs[0].id] = list(st)
                        return
                    b.cond = c
                    b.outs[b.succs[0].id] = list(st)
                    b.outs[b.succs[1].id] = list(st)
                else:  # JUMP_IF_FALSE_OR_POP / JUMP_IF_TRUE_OR_POP: the value stays on a jump
                    c = val(st[-1])
                    spill()
                    c = st[-1]
                    if not (isinstance(c, (ast.Constant, ast.Name)) or _stable(c)):
                        t = self.temp()
                        a = ast.Assign(targets=[ast.Name(id=t, ctx=ast.Store())], value=c)
                        a.lineno = line
                        out.append(a)
                        st[-1] = c = _name(t)
                    b.cond = c
                    b.keep = True
                    jumped = b.succs[0] if op == "JUMP_IF_TRUE_OR_POP" else b.succs[1]
                    other = b.succs[1] if jumped is b.succs[0] else b.succs[0]
                    b.outs[jumped.id] = list(st)
                    b.outs[other.id] = st[:-1]
                if b.succs[0] is b.succs[1]:
                    self.fail("a conditional jump with one target", line)
                return
            else:
                self.fail(f"the bytecode instruction {op}", line)
        if b.kind == "fall":
            b.outs[b.succs[0].id] = list(st)

    def materialize(self, e, out, line):
        """`e` with its parts evaluated into temporaries (a slice or a tuple
        of slices cannot be one)."""
        if _dupable(e):
            return e
        if isinstance(e, ast.Tuple):
            return ast.Tuple(elts=[self.materialize(x, out, line) for x in e.elts], ctx=ast.Load())
        if isinstance(e, ast.Slice):
            return ast.Slice(*[None if x is None else self.materialize(x, out, line)
                               for x in (e.lower, e.upper, e.step)])
        t = self.temp()
        a = ast.Assign(targets=[ast.Name(id=t, ctx=ast.Store())], value=e)
        a.lineno = line
        out.append(a)
        return _name(t)

    # ---- nested code: functions, lambdas, comprehensions ---------------------
    def lambda_expr(self, f):
        body, args = _decompile_body(f.code, f.defaults, f.kwdefaults)
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            self.fail("a lambda whose body is not one expression", f.line)
        return ast.Lambda(args=args, body=body[0].value)

    def store_func(self, target, f, emit, stores):
        if f.code.co_name == "<lambda>":
            emit(ast.Assign(targets=[target], value=self.lambda_expr(f)), stores)
            return
        if not isinstance(target, ast.Name):
            self.fail("storing a function other than in a variable", f.line)
        body, args = _decompile_body(f.code, f.defaults, f.kwdefaults)
        if target.id != f.code.co_name:
            self.fail("a function stored under another name", f.line)
        fd = ast.FunctionDef(name=target.id, args=args, body=body, decorator_list=[], returns=None,
                             type_comment=None)
        fd._hj_line = f.code.co_firstlineno
        emit(fd, stores)

    def comprehension(self, f, iterable):
        """3.11: the call of a <listcomp>/<setcomp>/<dictcomp> code object."""
        code = f.code
        kind = code.co_name
        if kind not in ("<listcomp>", "<setcomp>", "<dictcomp>"):
            self.fail(f"a {kind.strip('<>')} (generator expressions are not reconstructed)", f.line)
        d = _Decompiler(code, comp=True)
        return self.comp_expr(d, kind.strip("<>")[:-4], iterable, f.line)

    def inline_comprehension(self, instrs, iterable):
        """3.12+: a comprehension inlined in this code (_COMPREHENSION)."""
        d = _Decompiler(self.code, comp=True, instrs=_inline_comprehensions(instrs))
        d.ntemp = self.ntemp
        got = self.comp_expr(d, _BUILDS[instrs[0].opname], iterable, _line(instrs[0], self.line))
        self.ntemp = d.ntemp
        return got

    def comp_expr(self, d, kind, iterable, line):
        d.acc = None
        stmts = d.structure()
        if not stmts or not isinstance(stmts[-1], ast.Return):
            self.fail("a comprehension of an unexpected shape", line)
        gens = []
        elt = self.comp_body(stmts[:-1], gens, line)
        if not gens or not (isinstance(gens[0].iter, ast.Name) and gens[0].iter.id == ".0"):
            self.fail("a comprehension of an unexpected shape", line)
        gens[0].iter = iterable
        if kind == "list":
            return ast.ListComp(elt=elt.value, generators=gens)
        if kind == "set":
            return ast.SetComp(elt=elt.value, generators=gens)
        return ast.DictComp(key=elt.key, value=elt.value, generators=gens)

    def comp_body(self, stmts, gens, line):
        stmts = [s for s in stmts if not isinstance(s, ast.Continue)]
        if len(stmts) == 1 and isinstance(stmts[0], _Append):
            return stmts[0]
        if len(stmts) == 1 and isinstance(stmts[0], ast.For) and not stmts[0].orelse:
            fo = stmts[0]
            gens.append(ast.comprehension(target=fo.target, iter=fo.iter, ifs=[], is_async=0))
            return self.comp_body(fo.body, gens, line)
        if gens and stmts and isinstance(stmts[0], ast.If) and not stmts[0].orelse:
            s0 = stmts[0]
            if len(stmts) == 1:
                gens[-1].ifs.append(s0.test)
                return self.comp_body(s0.body, gens, line)
            if [type(x) for x in s0.body] == [ast.Continue]:
                gens[-1].ifs.append(_not(s0.test))
                return self.comp_body(stmts[1:], gens, line)
        self.fail("a comprehension of an unexpected shape", line)

    # ---- the control-flow graph ----------------------------------------------
    def rpo(self):
        seen, order = set(), []
        stack = [(self.bl[0], iter(self.bl[0].succs))]
        seen.add(0)
        while stack:
            b, it = stack[-1]
            for s in it:
                if s.id not in seen:
                    seen.add(s.id)
                    stack.append((s, iter(s.succs)))
                    break
            else:
                stack.pop()
                order.append(b)
        order.reverse()
        return order

    def link(self):
        for b in self.bl:
            b.preds = []
        for b in self.live:
            for s in b.succs:
                s.preds.append(b)

    def analyse(self):
        order = self.rpo()
        self.live = order
        self.link()
        idx = {b.id: n for n, b in enumerate(order)}
        self.rpo_idx = idx
        idom = {order[0].id: order[0]}
        changed = True
        while changed:
            changed = False
            for b in order[1:]:
                new = None
                for p in b.preds:
                    if p.id not in idom:
                        continue
                    if new is None:
                        new = p
                        continue
                    x, y = p, new
                    while x is not y:
                        while idx[x.id] > idx[y.id]:
                            x = idom[x.id]
                        while idx[y.id] > idx[x.id]:
                            y = idom[y.id]
                    new = x
                if idom.get(b.id) is not new:
                    idom[b.id] = new
                    changed = True
        self.idom = idom
        self.children = {b.id: [] for b in order}
        for b in order[1:]:
            self.children[idom[b.id].id].append(b)
        # natural loops; a retreating edge that is not a back edge: irreducible
        self.loops = {}
        for b in order:
            for s in b.succs:
                if idx[s.id] <= idx[b.id]:
                    if not self.dominates(s, b):
                        self.fail("control flow that is not structured (irreducible)", b.line)
                    body = self.loops.setdefault(s.id, {s.id})
                    work = [b]
                    while work:
                        x = work.pop()
                        if x.id not in body:
                            body.add(x.id)
                            work.extend(x.preds)

    def dominates(self, a, b):
        while True:
            if a is b:
                return True
            nb = self.idom.get(b.id)
            if nb is None or nb is b:
                return False
            b = nb

    def pure_cond(self, b, header_ok=False):
        return (b.kind == "cond" and not b.stmts and b.entry is not None and
                all(b.outs[s.id] == b.entry or b.outs[s.id][:len(b.entry)] == b.entry and
                    len(b.outs[s.id]) == len(b.entry) for s in b.succs) and
                not getattr(b, "slotvars", None) and (header_ok or b.id not in self.loops))

    def fold_conditions(self):
        """`a and b`, `a or b` and their nestings back into one condition."""
        changed = True
        while changed:
            changed = False
            for b in self.live:
                if b.kind != "cond":
                    continue
                t, f = b.succs
                for inner, is_t in ((t, True), (f, False)):
                    if inner is b or len(inner.preds) != 1 or not self.pure_cond(inner):
                        continue
                    if len(b.outs[inner.id]) != len(inner.entry):
                        continue
                    t2, f2 = inner.succs
                    other = f if is_t else t
                    c1, c2 = b.cond, inner.cond
                    if is_t:  # b true -> inner
                        if f2 is other:
                            new = (ast.BoolOp(op=ast.And(), values=[c1, c2]), t2, other)
                        elif t2 is other:
                            new = (ast.BoolOp(op=ast.And(), values=[c1, _not(c2)]), f2, other)
                        else:
                            continue
                    else:  # b false -> inner
                        if t2 is other:
                            new = (ast.BoolOp(op=ast.Or(), values=[c1, c2]), other, f2)
                        elif f2 is other:
                            new = (ast.BoolOp(op=ast.Or(), values=[c1, _not(c2)]), other, t2)
                        else:
                            continue
                    b.cond, nt, nf = new
                    b.line = b.line or inner.line
                    b.succs = [nt, nf]
                    b.outs = {nt.id: inner.outs[nt.id] if nt.id in inner.outs else b.outs[nt.id],
                              nf.id: inner.outs[nf.id] if nf.id in inner.outs else b.outs[nf.id]}
                    b.outs[nt.id] = list(b.entry) if len(b.outs[nt.id]) == len(b.entry) else b.outs[nt.id]
                    inner.kind = "dead"
                    self.live = [x for x in self.live if x is not inner]
                    self.link()
                    changed = True
                    break
                if changed:
                    break

    def unrotate(self):
        """CPython 3.11 copies a while loop's test to the loop's end
        (`if test: do: body while test`); jump to the first copy instead, so
        that the test block heads the loop as in the source."""
        for c in list(self.live):
            if c.kind != "cond" or getattr(c, "keep", False) or c.entry is None or \
                    getattr(c, "slotvars", None):
                continue
            dc = ast.dump(c.cond)
            if "_hj_" in dc:
                continue
            for l_ in self.live:
                if l_ is c or l_.kind != "cond" or l_.succs != c.succs or ast.dump(l_.cond) != dc:
                    continue
                h = l_.succs[0] if self.rpo_idx[l_.succs[0].id] <= self.rpo_idx[l_.id] else l_.succs[1]
                if self.rpo_idx[h.id] > self.rpo_idx[l_.id] or not self.dominates(c, l_):
                    continue
                if any(l_.outs[s.id] != l_.outs[l_.succs[0].id] for s in l_.succs):
                    continue
                if c.stmts:  # the test alone becomes the block the loop jumps to
                    t_ = _Block(len(self.bl), [c.instrs[-1]])
                    self.bl.append(t_)
                    t_.kind, t_.cond, t_.succs, t_.line = "cond", c.cond, c.succs, c.line
                    t_.outs = dict(c.outs)
                    t_.entry = list(c.outs[c.succs[0].id])
                    c.kind, c.cond, c.succs = "fall", None, [t_]
                    c.outs = {t_.id: list(t_.entry)}
                    c = t_
                l_.kind, l_.cond = "jump", None
                l_.outs = {c.id: l_.outs[l_.succs[0].id]}
                l_.succs = [c]
                self.analyse()
                return True
        return False

    # ---- structuring -----------------------------------------------------------
    def structure(self):
        self.blocks()
        self.link_all()
        self.run_blocks()
        self.analyse()
        self.fold_conditions()
        self.analyse()
        while self.unrotate():
            pass
        self.budget = 4 * len(self.bl) + 64
        self.active = []  # loop headers being structured
        self.stops = []
        body, _ = self.region(self.live[0], None, None)
        return _tidy(body)

    def link_all(self):
        self.live = self.bl
        self.link()

    def in_body(self, b, lp):
        return lp is None or lp["body"] is None or b.id in lp["body"]

    def resolve(self, b):
        """Follow blocks that only move the stack (a `break`'s POP_TOP; JUMP)."""
        seen = set()
        while (b.kind in ("jump", "fall") and not b.stmts and b.id not in seen and
               not getattr(b.succs[0], "slotvars", None) and b.id not in self.loops and
               self.rpo_idx[b.succs[0].id] > self.rpo_idx[b.id]):
            seen.add(b.id)
            b = b.succs[0]
        return b

    def closed(self, t, lp):
        """Every path from t ends in return/raise/break/continue without
        joining code that other paths reach."""
        work, seen = [t], set()
        while work:
            x = work.pop()
            if x.id in seen:
                continue
            seen.add(x.id)
            if lp is not None and (x is lp["header"] or not self.in_body(x, lp)):
                continue
            if x.id in self.loops and x is not t:
                if not self.dominates(t, x):
                    return False
            if not self.dominates(t, x):
                return False
            work.extend(x.succs)
        return True

    def edge(self, p, s):
        return self.edge_stmts(p, s)

    def region(self, b, stop, lp, enter=False):
        """Statements for the code from b up to `stop` (exclusive); also
        whether control reaches `stop`."""
        out = []
        while True:
            if b is stop:
                return out, True
            if b is None:
                return out, False
            if lp is not None and not enter:
                if lp["header"] is not None and b is lp["header"]:
                    out.append(_stmt(ast.Continue(), b.line))
                    return out, False
                if b is lp["follow"] or (lp["header"] is not None and self.resolve(b) is lp["follow"]):
                    out.append(_stmt(ast.Break(), b.line))
                    return out, False
                if lp["header"] is not None and not self.in_body(b, lp):
                    sub, reached = self.region(b, lp["follow"], {"header": None, "body": None,
                                                                 "follow": lp["follow"], "exit": True})
                    out += sub
                    if reached:
                        out.append(_stmt(ast.Break(), b.line))
                    return out, False
            if not enter and (any(b is s for s in self.stops if s is not stop) or b.id in self.active):
                if b.id in self.active and lp is not None and lp.get("exit"):
                    self.fail("a jump that leaves two loops at once", b.line)
                if b.id in self.active or any(b is s for s in self.stops if s is not stop):
                    self.fail("control flow that is not structured", b.line)
            self.budget -= 1
            if self.budget < 0:
                self.fail("control flow too irregular to be reconstructed", b.line)
            if b.id in self.loops and not (enter and lp is not None and lp["header"] is b):
                stmt, follow = self.loop(b, lp)
                out.append(stmt)
                if follow is None:
                    return out, False
                b = follow
                continue
            enter = False
            out += b.stmts
            if b.kind == "end":
                return out, False
            if b.kind in ("jump", "fall"):
                s = b.succs[0]
                out += self.edge(b, s)
                b = s
                continue
            if b.kind != "cond":
                self.fail("unexpected control flow", b.line)
            t, f = b.succs
            c = b.cond
            stmt, nxt = self.conditional(b, t, f, c, stop, lp)
            out.append(stmt)
            if nxt is None:
                return out, False
            if nxt is stop:
                return out, True
            b = nxt

    def branch(self, p, s, stop, lp):
        self.stops.append(stop)
        try:
            sub, reached = self.region(s, stop, lp)
        finally:
            self.stops.pop()
        return self.edge(p, s) + sub, reached

    def exitlike(self, s, lp):
        return lp is not None and lp["header"] is not None and (
            s is lp["header"] or not self.in_body(s, lp))

    def conditional(self, b, t, f, c, stop, lp):
        line = b.line
        # one side leaves (break, continue, return): `if c: leave`, then the other side
        sides = ((t, f, c), (f, t, _not(c)))
        if any(hasattr(x, "_hj_assert") for x in f.stmts):
            sides = sides[::-1]
        for side, rest, test in sides:
            if self.exitlike(side, lp) or (side is not stop and self.in_body(side, lp)
                                           and len(side.preds) == 1 and self.closed(side, lp)):
                body, reached = self.branch(b, side, None, lp)
                if reached:
                    self.fail("unexpected control flow", line)
                st = ast.If(test=test, body=body, orelse=[])
                pre = self.edge(b, rest)
                if len(body) == 1 and hasattr(body[0], "_hj_assert") and not pre:
                    st = ast.Assert(test=_not(test), msg=body[0]._hj_assert)
                st.lineno = line
                if pre:
                    st.orelse = pre
                return st, rest
        cands = [x for x in self.children[b.id] if x is not t and x is not f and self.in_body(x, lp)
                 and not (lp is not None and x is lp["header"])]
        # one side is where both meet: `if c: then`
        for side, other, test in ((t, f, c), (f, t, _not(c))):
            if cands:
                break
            if other is stop or (self.in_body(other, lp) and other is not (lp or {}).get("header") and
                                 any(p is not b and self.dominates(side, p) for p in other.preds)):
                body, _ = self.branch(b, side, other, lp)
                st = ast.If(test=test, body=body, orelse=self.edge(b, other))
                st.lineno = line
                return st, other
        # if/else and the block where they meet
        follow = None
        if len(cands) >= 1:
            follow = min(cands, key=lambda x: self.rpo_idx[x.id])
        tgt = follow if follow is not None else stop
        then, r1 = self.branch(b, t, tgt, lp)
        els, r2 = self.branch(b, f, tgt, lp)
        st = ast.If(test=c, body=then, orelse=els)
        st.lineno = line
        if follow is None:
            return st, (stop if (r1 or r2) and stop is not None else None)
        return st, follow

    def loop_follow(self, h, body, exits):
        """The block a loop continues at: the first block that every exit
        (but early returns) reaches along forward edges."""
        live = [e for e in exits if not self.closed_exit(e, body)] or exits[-1:]
        if not live:
            return None
        common = None
        outer = set()  # enclosing loop headers the exits jump back to
        for e in live:
            seen, work, back = set(), [e], set()
            while work:
                x = work.pop()
                if x.id in seen or x.id in body:
                    continue
                seen.add(x.id)
                for s in x.succs:
                    if self.rpo_idx[s.id] > self.rpo_idx[x.id]:
                        work.append(s)
                    elif s.id in self.active:
                        back.add(s.id)
            common = seen if common is None else common & seen
            outer = back if e is live[0] else outer & back
        if not common and len(outer) == 1:
            # 3.12 jumps from a `break` straight to the enclosing loop's
            # header when only `continue` follows the loop: that header
            return self.bl[outer.pop()]
        if not common:
            self.fail("a loop whose exits do not meet", h.line)
        return min((self.bl[i] for i in common), key=lambda x: self.rpo_idx[x.id])

    def loop(self, h, lp):
        body = self.loops[h.id]
        exits = []
        for bid in body:
            for s in self.bl[bid].succs:
                if s.id not in body:
                    r = self.resolve(s)
                    if r not in exits:
                        exits.append(r)
        exits.sort(key=lambda x: x.offset)
        line = h.line
        follow = self.loop_follow(h, body, exits)
        self.active.append(h.id)
        try:
            if h.kind == "for":
                x = self.resolve(h.succs[1])
                ctx = {"header": h, "body": body, "follow": follow}
                # the body starts at the loop's first block: a jump to h is `continue`
                inner, _ = self.branch(h, h.succs[0], None, ctx)
                target = _name(h.iter_var)
                if inner and isinstance(inner[0], ast.Assign) and len(inner[0].targets) == 1 and \
                        isinstance(inner[0].value, ast.Name) and inner[0].value.id == h.iter_var and \
                        h.iter_var not in _names_in(inner[1:]):
                    target = inner[0].targets[0]
                    inner = inner[1:]
                target = _store_ctx(target)
                it = h.entry[-1].expr
                orelse = self.loop_else(h, h.succs[1], x, follow, lp)
                st = ast.For(target=target, iter=it, body=inner, orelse=orelse, type_comment=None)
            else:
                test = None
                if self.pure_cond(h, True):
                    t, f = h.succs
                    if t.id in body and f.id not in body:
                        test, inside, outside = h.cond, t, f
                    elif f.id in body and t.id not in body:
                        test, inside, outside = _not(h.cond), f, t
                if test is not None:
                    ctx = {"header": h, "body": body, "follow": follow}
                    inner, _ = self.branch(h, inside, None, ctx)
                    orelse = self.loop_else(h, outside, self.resolve(outside), follow, lp)
                    st = ast.While(test=test, body=inner, orelse=orelse)
                else:
                    ctx = {"header": h, "body": body, "follow": follow}
                    self.stops.append(None)
                    try:
                        inner, _ = self.region(h, None, ctx, enter=True)
                    finally:
                        self.stops.pop()
                    st = ast.While(test=_const(True), body=inner, orelse=[])
        finally:
            self.active.pop()
        st.lineno = line
        return st, follow

    def loop_else(self, h, exit_, resolved, follow, lp):
        """The loop's else clause: the code between its natural exit and
        where breaks go."""
        if resolved is follow:
            return self.edge(h, exit_) and self.fail("a value left on the stack by a loop", h.line)
        self.active.pop()
        try:
            body, _ = self.branch(h, exit_, follow, lp)
        finally:
            self.active.append(h.id)
        return body

    def closed_exit(self, e, body):
        """An exit that only the loop reaches and whose code only returns or
        raises (an early return)."""
        for p in e.preds:
            if p.id in body:
                continue
            if p.kind in ("jump", "fall") and not p.stmts and all(q.id in body for q in p.preds):
                continue
            return False
        work, seen = [e], set()
        while work:
            x = work.pop()
            if x.id in seen:
                continue
            seen.add(x.id)
            if not self.dominates(e, x) or x.id in self.loops:
                return False
            work.extend(x.succs)
        return True


def _through_back_jumps(b):
    seen = set()
    while (b.kind == "jump" and b.instrs[-1].opname == "JUMP_BACKWARD" and b.id not in seen and
           all(i.opname == "NOP" for i in b.instrs[:-1])):
        seen.add(b.id)
        b = b.succs[0]
    return b


def _is_none(e):
    return isinstance(e, ast.Constant) and e.value is None


def _joined(parts, line, d):
    """An f-string (BUILD_STRING) of constant strings and formatted values."""
    values = []
    for p in parts:
        if isinstance(p, ast.JoinedStr):
            values.extend(p.values)
        elif isinstance(p, ast.FormattedValue) or (isinstance(p, ast.Constant) and isinstance(p.value, str)):
            values.append(p)
        else:
            d.fail("a string built from a value that is not formatted", line)
    values = [v for v in values if not (isinstance(v, ast.Constant) and v.value == "")]
    return ast.JoinedStr(values=values)


def _stored_derefs(code):
    return {i.argval for i in dis.get_instructions(code) if i.opname in ("STORE_DEREF", "DELETE_DEREF")}


def _stmt(s, line):
    s.lineno = line
    return s


def _store_ctx(e):
    e = ast.parse(ast.unparse(e), mode="eval").body if not isinstance(e, ast.Name) else \
        ast.Name(id=e.id, ctx=ast.Store())
    for n in ast.walk(e):
        if hasattr(n, "ctx"):
            n.ctx = ast.Store() if isinstance(n, (ast.Name, ast.Tuple, ast.List)) else n.ctx
    return e


def _names_in(stmts):
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name):
                out.add(n.id)
    return out


def _tidy(body, in_loop=False):
    """Drop a loop body's trailing `continue`, fill empty bodies, fold
    `else: if` into elif (the printer does), `if c: pass else: x` into
    `if not c: x`."""
    out = []
    for s in body:
        if isinstance(s, ast.If):
            s.body = _tidy(s.body, in_loop)
            s.orelse = _tidy(s.orelse, in_loop) if s.orelse else []
            if s.orelse == [] or (len(s.orelse) == 1 and isinstance(s.orelse[0], ast.Pass)):
                s.orelse = []
            if len(s.body) == 1 and isinstance(s.body[0], ast.Pass) and s.orelse:
                s.test, s.body, s.orelse = _not(s.test), s.orelse, []
        elif isinstance(s, (ast.For, ast.While)):
            s.body = _strip_continue(_tidy(s.body, True))
            s.orelse = _tidy(s.orelse, in_loop) if s.orelse else []
        elif isinstance(s, ast.FunctionDef):
            pass
        out.append(s)
    if not out:
        out = [_stmt(ast.Pass(), None)]
    return out


def _strip_continue(body):
    if body and isinstance(body[-1], ast.Continue):
        body = body[:-1]
    elif body and isinstance(body[-1], ast.If):
        s = body[-1]
        s.body = _strip_continue(s.body)
        s.orelse = _strip_continue(s.orelse) if s.orelse else []
        if not s.body:
            s.body = [_stmt(ast.Pass(), None)]
    if not body:
        body = [_stmt(ast.Pass(), None)]
    return body


def _arguments(code, defaults, kwdefaults=None):
    names = code.co_varnames
    npos = code.co_argcount
    nkw = code.co_kwonlyargcount
    flags = code.co_flags
    posonly = code.co_posonlyargcount
    args = [ast.arg(arg=n, annotation=None) for n in names[:npos]]
    kwonly = [ast.arg(arg=n, annotation=None) for n in names[npos:npos + nkw]]
    i = npos + nkw
    vararg = kwarg = None
    if flags & 0x04:
        vararg = ast.arg(arg=names[i], annotation=None)
        i += 1
    if flags & 0x08:
        kwarg = ast.arg(arg=names[i], annotation=None)
    defs = []
    if defaults is not None:
        if isinstance(defaults, ast.Constant) and isinstance(defaults.value, tuple):
            defs = [_const(v) for v in defaults.value]
        elif isinstance(defaults, ast.Tuple):
            defs = list(defaults.elts)
        elif isinstance(defaults, tuple):
            defs = [_literal(v) for v in defaults]
    kwdefs = {}
    if isinstance(kwdefaults, dict):  # a function's __kwdefaults__
        kwdefs = {k: _literal(v) for k, v in kwdefaults.items()}
    elif isinstance(kwdefaults, ast.Dict):  # MAKE_FUNCTION's (BUILD_CONST_KEY_MAP)
        for k, v in zip(kwdefaults.keys, kwdefaults.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise DecompileError("keyword-only defaults of an unexpected shape")
            kwdefs[k.value] = v
    return ast.arguments(posonlyargs=args[:posonly], args=args[posonly:], vararg=vararg,
                         kwonlyargs=kwonly, kw_defaults=[kwdefs.get(a.arg) for a in kwonly],
                         kwarg=kwarg, defaults=defs)


def _literal(v):
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        return _const(v)
    if isinstance(v, tuple):
        return ast.Tuple(elts=[_literal(x) for x in v], ctx=ast.Load())
    raise DecompileError(f"a default argument value of type {type(v).__name__}")


def _decompile_body(code, defaults, kwdefaults=None):
    d = _Decompiler(code)
    d.acc = None
    body = d.structure()
    # a variable of the enclosing function this one assigns
    outer = sorted(_stored_derefs(code) & set(code.co_freevars))
    if outer:
        body.insert(0, _stmt(ast.Nonlocal(names=outer), None))
    # the implicit `return None` at the end
    if body and isinstance(body[-1], ast.Return) and isinstance(body[-1].value, ast.Constant) and \
            body[-1].value.value is None and getattr(body[-1], "lineno", None) in (None, code.co_firstlineno):
        pass
    return body, _arguments(code, defaults, kwdefaults)


# ---- text ----------------------------------------------------------------------

def _expr(e):
    return _unparse(e)


def _unparse(node):
    # constants with no literal form
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, float) and n.value != n.value:
            raise DecompileError("a NaN constant")
    return ast.unparse(node)


class _Lines:
    def __init__(self, first):
        self.first = first
        self.lines = []  # text of each line from `first`
        self.pos = -1    # the statement being written, in _order's order
        self.joins = set()  # positions of copied returns (_mark_copied_returns)

    def put(self, text, line):
        want = (line - self.first) if line is not None else None
        if want is not None and want >= len(self.lines):
            while len(self.lines) < want:
                self.lines.append("")
        self.lines.append(text)

    def join(self, text):
        """`text` at the end of the last line: `if c: return x`, `a = 1; return a`."""
        if not self.lines:
            self.lines.append(text)
        else:
            last = self.lines[-1]
            self.lines[-1] = last + (" " if last.endswith(":") else "; ") + text


def _order(stmts, out):
    """The statements in the order _emit writes them."""
    for s in stmts:
        out.append(s)
        if isinstance(s, (ast.If, ast.For, ast.While)):
            _order(s.body, out)
            _order(s.orelse, out)
        elif isinstance(s, ast.FunctionDef):
            _order(s.body, out)
    return out


def _mark_copied_returns(fd, out):
    """3.10 and 3.12+ copy a small `return` into the branches that jump to it; a
    copy keeps the line of the original, below the statements that follow
    the copy.  Such a return is written at the end of the line before it
    (out.joins: positions, as a node can be written twice), so that the
    lines after keep their numbers."""
    seq = _order([fd], [])
    low = None
    for k in range(len(seq) - 1, -1, -1):
        s = seq[k]
        line = getattr(s, "_hj_line", None) or getattr(s, "lineno", None)
        if line is None:
            continue
        if isinstance(s, ast.Return) and low is not None and line > low:
            out.joins.add(k)
            continue
        low = line if low is None else min(low, line)


_COMPOUND = (ast.If, ast.For, ast.While, ast.FunctionDef)


def _emit(stmts, out, indent):
    pad = "    " * indent
    for k, s in enumerate(stmts):
        line = getattr(s, "lineno", None)
        if not isinstance(s, ast.If):
            out.pos += 1
        if isinstance(s, ast.If):
            _emit_if(s, out, indent, "if")
        elif isinstance(s, ast.While):
            out.put(f"{pad}while {_expr(s.test)}:", line)
            _emit(s.body, out, indent + 1)
            if s.orelse:
                out.put(f"{pad}else:", None)
                _emit(s.orelse, out, indent + 1)
        elif isinstance(s, ast.For):
            out.put(f"{pad}for {_expr(s.target)} in {_expr(s.iter)}:", line)
            _emit(s.body, out, indent + 1)
            if s.orelse:
                out.put(f"{pad}else:", None)
                _emit(s.orelse, out, indent + 1)
        elif isinstance(s, ast.FunctionDef):
            out.put(f"{pad}def {s.name}({_unparse(s.args)}):", getattr(s, "_hj_line", line))
            _emit(s.body, out, indent + 1)
        elif isinstance(s, _Append):
            raise DecompileError("a comprehension of an unexpected shape", line)
        elif out.pos in out.joins and (k == 0 or not isinstance(stmts[k - 1], _COMPOUND)):
            out.join(_unparse(s))  # after its header or a simple statement
        else:
            out.put(pad + _unparse(s), line)


def _emit_if(s, out, indent, word):
    pad = "    " * indent
    out.pos += 1
    out.put(f"{pad}{word} {_expr(s.test)}:", getattr(s, "lineno", None))
    _emit(s.body, out, indent + 1)
    if s.orelse:
        if len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
            _emit_if(s.orelse[0], out, indent, "elif")
        else:
            out.put(f"{pad}else:", None)
            _emit(s.orelse, out, indent + 1)


def decompile(py_func):
    """(source text of a def, first line): Python text equivalent to the
    function's bytecode, each statement at its original line where the order
    allows.  Raises DecompileError."""
    code = py_func.__code__
    if sys.version_info[:2] not in SUPPORTED:
        raise DecompileError(
            f"CPython {sys.version_info[0]}.{sys.version_info[1]} (the decompiler reads "
            f"{', '.join('%d.%d' % v for v in SUPPORTED)} bytecode only)",
            code.co_firstlineno)
    if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):  # generator, coroutine, async
        raise DecompileError("a generator or coroutine", code.co_firstlineno)
    body, args = _decompile_body(code, py_func.__defaults__, py_func.__kwdefaults__)
    name = code.co_name
    if name == "<lambda>":
        name = "_lambda_"
    fd = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                         type_comment=None)
    fd.lineno = code.co_firstlineno
    out = _Lines(code.co_firstlineno)
    _mark_copied_returns(fd, out)
    _emit([fd], out, 0)
    text = "\n".join(out.lines) + "\n"
    return text, code.co_firstlineno
