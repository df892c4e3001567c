"""The on-disk compile cache (python/hpcjit/cache.py, docs/CACHE.md): a hit
in a fresh process, key sensitivity (source of the function, of a callee,
of an inner function, a global constant, an option, the argument types),
rejection of truncated/corrupted/mismatched entries, a process killed while
writing, many processes on one empty directory, the lock file (compile
once, wait, timeout, stale locks), the management command, hit latency.
Every program run here checks each compiled function against its py_func."""
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit internals", allow_module_level=True)

from hpcjit import cache  # noqa: E402

pytestmark = pytest.mark.numba_skip("tests hpcjit's own cache")

BASE = """
import numpy as np
from hpcjit import njit

K = 3.0

@njit
def helper(x):
    return x * K + 1.0

@njit(cache=True, fastmath=False)
def kern(a):
    def inner(v):
        return v - 0.5
    s = 0.0
    for i in range(a.shape[0]):
        s += inner(helper(a[i]))
    return s

ARG = np.arange(20.0)
"""

MAIN = """
import sys
got = kern(ARG)
exp = kern.py_func(ARG)
assert abs(got - exp) <= 1e-9 * max(1.0, abs(exp)), (got, exp)
info = kern._infos[-1]
print("RESULT", repr(got), info["cache"], flush=True)
"""


def write_prog(tmp_path, body=BASE, name="prog.py", main=MAIN):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body) + textwrap.dedent(main))
    return p


def run(prog, cache_dir, env=None, timeout=120, check=True):
    e = dict(os.environ)
    e.pop("HPCJIT_CACHE", None)
    e.update(HPCJIT_CACHE_DIR=str(cache_dir), HPCJIT_DEBUG_COMPILE="1",
             PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if env:
        e.update(env)
    r = subprocess.run([sys.executable, str(prog)], env=e, capture_output=True, text=True,
                       timeout=timeout)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "RESULT" in r.stdout, r.stdout + r.stderr
    return r


def compiles(r, name="kern"):
    return len(re.findall(rf"hpcjit: compiled {name} ", r.stderr))


def hits(r, name="kern"):
    return len(re.findall(rf"hpcjit: cache hit {name} ", r.stderr))


def entries(cache_dir):
    return sorted(p for p in cache_dir.rglob("*" + cache.SUFFIX) if not p.name.startswith("."))


# ---- hit and miss ------------------------------------------------------------------------

def test_hit_in_fresh_process(tmp_path):
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    r1 = run(prog, cd)
    assert compiles(r1) == 1 and hits(r1) == 0
    assert "miss" in r1.stdout
    assert len(entries(cd)) == 1
    r2 = run(prog, cd)
    assert compiles(r2) == 0 and hits(r2) == 1, r2.stderr
    assert r2.stdout.split()[1] == r1.stdout.split()[1]
    assert " hit" in r2.stdout
    # the counts at exit (HPCJIT_DEBUG_COMPILE)
    assert "hpcjit: cache: 1 hit(s)" in r2.stderr
    # the arch subdirectory is named after the CPU
    (arch,) = [p.name for p in cd.iterdir() if p.name != "targets"]
    assert arch == cache.arch_dir_name()


def test_env_switch(tmp_path):
    body = BASE.replace("@njit(cache=True, fastmath=False)", "@njit(fastmath=False)")
    prog = write_prog(tmp_path, body)
    cd = tmp_path / "cache"
    run(prog, cd)
    assert entries(cd) == []  # no cache=True, no HPCJIT_CACHE
    r1 = run(prog, cd, {"HPCJIT_CACHE": "1"})
    # every function: kern, and helper (compiled when kern.py_func calls it)
    assert compiles(r1) == 1 and len(entries(cd)) == 2
    r2 = run(prog, cd, {"HPCJIT_CACHE": "1"})
    assert compiles(r2) == 0 and hits(r2) == 1
    # HPCJIT_CACHE=0 wins over cache=True
    prog2 = write_prog(tmp_path, BASE, "prog2.py")
    cd2 = tmp_path / "cache2"
    r3 = run(prog2, cd2, {"HPCJIT_CACHE": "0"})
    assert compiles(r3) == 1 and entries(cd2) == []


def test_numba_cache_dir(tmp_path):
    prog = write_prog(tmp_path)
    cd = tmp_path / "numba-cache"
    r = run(prog, "", {"NUMBA_CACHE_DIR": str(cd)})
    assert compiles(r) == 1
    assert len(entries(cd)) == 1


VARIANTS = {
    "entry source": ("s += inner(helper(a[i]))", "s += inner(helper(a[i])) * 1.0"),
    "callee source": ("return x * K + 1.0", "return x * K + 2.0"),
    "inner function": ("return v - 0.5", "return v - 0.25"),
    "global constant": ("K = 3.0", "K = 4.0"),
    "option": ("fastmath=False", "fastmath=True"),
    "argument types": ("ARG = np.arange(20.0)", "ARG = np.arange(20)"),
    "layout": ("ARG = np.arange(20.0)", "ARG = np.arange(40.0)[::2]"),
}


def test_key_sensitivity(tmp_path):
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    base = run(prog, cd)
    assert compiles(base) == 1
    results = {}
    for what, (old, new) in VARIANTS.items():
        assert old in BASE, what
        p = write_prog(tmp_path, BASE.replace(old, new))
        r = run(p, cd)
        assert compiles(r) == 1 and hits(r) == 0, f"{what}: a stale hit\n{r.stderr}"
        results[what] = r.stdout.split()[1]
        # the same edit again: now a hit, with the edited result
        r2 = run(p, cd)
        assert compiles(r2) == 0 and hits(r2) == 1, what
        assert r2.stdout.split()[1] == results[what]
    assert results["callee source"] != base.stdout.split()[1]
    assert results["global constant"] != base.stdout.split()[1]
    assert len(entries(cd)) == 1 + len(VARIANTS)
    # the original program still hits its own entry
    p = write_prog(tmp_path)
    r = run(p, cd)
    assert compiles(r) == 0 and hits(r) == 1


def test_target_overrides_are_keys(tmp_path):
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    run(prog, cd)
    r = run(prog, cd, {"HPCJIT_CPU_NAME": "x86-64", "HPCJIT_CPU_FEATURES": "+sse2"})
    assert compiles(r) == 1 and hits(r) == 0
    # one subdirectory per architecture (and the target memos)
    assert len([p for p in cd.iterdir() if p.name != "targets"]) == 2
    r = run(prog, cd, {"HPCJIT_OPT": "1"})
    assert compiles(r) == 1 and hits(r) == 0
    r = run(prog, cd, {"HPCJIT_CPU_NAME": "x86-64", "HPCJIT_CPU_FEATURES": "+sse2"})
    assert compiles(r) == 0 and hits(r) == 1


SWITCH_MAIN = """
import os
got = kern(ARG)
assert got == kern.py_func(ARG)
os.environ["HPCJIT_CPU_NAME"] = "x86-64"      # read by the compiler at every compilation
os.environ["HPCJIT_CPU_FEATURES"] = "+sse2"

@njit(cache=True)
def other(a):
    return a.sum()
assert other(ARG) == other.py_func(ARG)
print("RESULT", got, kern._infos[-1]["cache"])
"""


def test_target_change_in_process(tmp_path):
    prog = write_prog(tmp_path, main=SWITCH_MAIN, name="switch.py")
    cd = tmp_path / "cache"
    run(prog, cd)
    dirs = sorted(p.name for p in cd.iterdir() if p.name != "targets")
    assert len(dirs) == 2 and any(d.startswith("x86-64-") for d in dirs), dirs
    other = [p for p in entries(cd) if p.name.startswith("other-")]
    assert len(other) == 1 and other[0].parent.name.startswith("x86-64-")


def test_key_in_process():
    funcs = [("f", "f", "/x.py", "def f(a):\n    return a\n", 1, 0, [("K", "float", 1.0)], {})]
    k = cache.cache_key(funcs, 0, ("d",), None)
    assert k == cache.cache_key(funcs, 0, ("d",), None)
    assert k != cache.cache_key(funcs, 0, ("q",), None)
    assert k != cache.cache_key(funcs, 0, ("d",), "d")
    other = [funcs[0][:6] + ([("K", "float", 2.0)], {})]
    assert k != cache.cache_key(other, 0, ("d",), None)


# ---- damaged entries ---------------------------------------------------------------------

def _damage_and_rerun(tmp_path, damage):
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    first = run(prog, cd)
    (entry,) = entries(cd)
    damage(entry)
    r = run(prog, cd)
    assert "hpcjit: cache: rejected" in r.stderr, r.stderr
    assert compiles(r) == 1 and hits(r) == 0
    assert r.stdout.split()[1] == first.stdout.split()[1]
    # rewritten whole: the next process hits it
    r = run(prog, cd)
    assert compiles(r) == 0 and hits(r) == 1
    return r


def test_truncated_entry(tmp_path):
    def cut(p):
        data = p.read_bytes()
        p.write_bytes(data[:len(data) // 2])
    _damage_and_rerun(tmp_path, cut)


def test_truncated_header(tmp_path):
    _damage_and_rerun(tmp_path, lambda p: p.write_bytes(p.read_bytes()[:20]))


def test_empty_entry(tmp_path):
    _damage_and_rerun(tmp_path, lambda p: p.write_bytes(b""))


def test_corrupted_object(tmp_path):
    def flip(p):
        data = bytearray(p.read_bytes())
        data[-40] ^= 0x01  # inside the object code
        p.write_bytes(bytes(data))
    _damage_and_rerun(tmp_path, flip)


def test_corrupted_metadata(tmp_path):
    def flip(p):
        data = bytearray(p.read_bytes())
        data[cache._HEADER.size + 3] ^= 0x40
        p.write_bytes(bytes(data))
    _damage_and_rerun(tmp_path, flip)


def test_wrong_magic_and_format(tmp_path):
    def magic(p):
        data = bytearray(p.read_bytes())
        data[0:8] = b"NOTHPCJT"
        p.write_bytes(bytes(data))
    _damage_and_rerun(tmp_path, magic)


def test_entry_under_another_key(tmp_path):
    """A valid entry of another specialisation put under this key's name
    (checksum good, key wrong) is rejected."""
    def swap(p):
        k, meta, obj = cache.decode(p.read_bytes())
        other = bytes(32 - len(b"x")) + b"x"
        p.write_bytes(cache.encode(other, meta, obj))
    _damage_and_rerun(tmp_path, swap)


def test_decode_rejections():
    key = bytes(range(32))
    good = cache.encode(key, {"entry_symbol": "s", "rettype": "d", "signature": "x"}, b"\x7fELF" * 10)
    assert cache.decode(good, key)[2] == b"\x7fELF" * 10
    bad = [good[:10], good[:-1], good + b"x", b"X" + good[1:],
           good[:8] + (2).to_bytes(4, "little") + good[12:]]
    flipped = bytearray(good)
    flipped[-1] ^= 1
    bad.append(bytes(flipped))
    for b in bad:
        with pytest.raises(ValueError):
            cache.decode(b, key)
    with pytest.raises(ValueError):
        cache.decode(good, bytes(32))


def test_not_owned_dir_is_not_used(tmp_path):
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    cd.mkdir()
    os.chmod(cd, 0o777)
    r = run(prog, cd)
    assert "not using the compile cache" in r.stderr
    assert "writable by others" in r.stderr
    assert entries(cd) == []


# ---- faults and concurrency --------------------------------------------------------------

def test_leftover_temp_file_is_never_used(tmp_path):
    """What a process killed in the middle of a write leaves: a partial
    temporary file beside the entry's name, never the entry itself."""
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    first = run(prog, cd)
    (entry,) = entries(cd)
    data = entry.read_bytes()
    entry.unlink()
    tmp = entry.parent / f".{entry.name}.tmp.somehost.999999.abcd"
    tmp.write_bytes(data[:len(data) // 3])
    r = run(prog, cd)
    assert compiles(r) == 1 and hits(r) == 0
    assert r.stdout.split()[1] == first.stdout.split()[1]
    # prune removes old leftovers
    old = time.time() - 7200
    os.utime(tmp, (old, old))
    out = subprocess.run([sys.executable, "-m", "hpcjit.cache", "--dir", str(cd), "prune",
                          "--max-size", "1G", "--json"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert json.loads(out.stdout)["leftovers_removed"] == 1
    assert not tmp.exists()


KILL_MAIN = """
import os, signal
from hpcjit import cache
real_write = os.write
def half_write(fd, data):
    if bytes(data[:8]) != cache.MAGIC:  # the lock file's line, the target memo
        return real_write(fd, data)
    real_write(fd, bytes(data[:len(data) // 2]))
    os.kill(os.getpid(), signal.SIGKILL)
os.write = half_write          # the entry's write: killed half way
kern(ARG)
"""


def test_kill_9_during_write(tmp_path):
    prog = write_prog(tmp_path, main=KILL_MAIN, name="killed.py")
    cd = tmp_path / "cache"
    r = run(prog, cd, check=False)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert entries(cd) == []  # a temporary file and the lock, no entry
    leftovers = [p.name for p in cd.rglob("*")]
    assert any(".tmp." in n for n in leftovers), leftovers
    assert any(n.endswith(".lock") for n in leftovers), leftovers
    # the next process: the lock's pid is dead on this host, so no waiting
    prog2 = write_prog(tmp_path)
    t0 = time.monotonic()
    r = run(prog2, cd, {"HPCJIT_CACHE_WAIT": "30"})
    assert time.monotonic() - t0 < 20
    assert compiles(r) == 1 and hits(r) == 0
    assert len(entries(cd)) == 1
    r = run(prog2, cd)
    assert hits(r) == 1


def _start(prog, cd, n, env=None, extra_args=()):
    e = dict(os.environ)
    e.pop("HPCJIT_CACHE", None)
    e.update(HPCJIT_CACHE_DIR=str(cd), HPCJIT_DEBUG_COMPILE="1",
             PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if env:
        e.update(env)
    return [subprocess.Popen([sys.executable, str(prog), str(i), *extra_args], env=e,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(n)]


def _finish(procs, timeout=300):
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=timeout)
        assert p.returncode == 0, err
        assert "RESULT" in out, out + err
        outs.append((out, err))
    return outs


N_MANY = 64


def test_many_processes_one_empty_dir(tmp_path):
    """64 processes start at once on the same empty directory (2 cores
    here): every result is right, and the lock makes one of them compile."""
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    outs = _finish(_start(prog, cd, N_MANY, {"HPCJIT_CACHE_WAIT": "240"}))
    results = {o.split()[1] for o, _ in outs}
    assert len(results) == 1
    n_compiled = sum(compiles(subprocess.CompletedProcess([], 0, o, e)) for o, e in outs)
    n_hits = sum(hits(subprocess.CompletedProcess([], 0, o, e)) for o, e in outs)
    assert n_compiled == 1, n_compiled
    assert n_hits == N_MANY - 1
    assert len(entries(cd)) == 1
    assert not [p for p in cd.rglob("*") if p.name.endswith(".lock") or ".tmp." in p.name]


def test_many_writers_of_one_entry(tmp_path):
    """No waiting (HPCJIT_CACHE_WAIT=0): the processes that miss the lock
    compile and replace the same entry while others read it; every result
    is right and the entry left is whole."""
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    outs = _finish(_start(prog, cd, 32, {"HPCJIT_CACHE_WAIT": "0"}))
    assert len({o.split()[1] for o, _ in outs}) == 1
    assert not any("hpcjit: cache: rejected" in e for _, e in outs)
    (entry,) = entries(cd)
    cache.decode(entry.read_bytes())  # whole and valid
    r = run(prog, cd)
    assert hits(r) == 1


def test_explicit_signature_and_dropin(tmp_path):
    body = """
    import numpy as np
    import numba
    @numba.njit("float64(float64[:])", cache=True)
    def kern(a):
        return a.sum() * 2.0
    ARG = np.arange(5.0)
    """
    cd = tmp_path / "cache"
    prog = write_prog(tmp_path, body, "sig.py")
    env = {"NUMBA_CACHE_DIR": str(cd), "HPCJIT_CACHE_DIR": ""}
    e = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    e.pop("HPCJIT_CACHE", None)
    e.update(env, HPCJIT_DEBUG_COMPILE="1")
    outs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-m", "hpcjit.numba", str(prog)], env=e,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "RESULT" in r.stdout, r.stdout + r.stderr
        outs.append(r)
    assert compiles(outs[0]) == 1 and hits(outs[1]) == 1 and compiles(outs[1]) == 0
    assert len(entries(cd)) == 1


RANKS_MAIN = """
import sys, time
rank = int(sys.argv[1])
t0 = time.perf_counter()
got = kern(ARG)
assert got == kern.py_func(ARG)
if rank == 0:  # a function only one process calls: nobody waits for it
    @njit(cache=True)
    def only_here(n):
        return n + 1
    assert only_here(41) == only_here.py_func(41)
print("RESULT", repr(got), kern._infos[-1]["cache"], f"{(time.perf_counter() - t0) * 1e3:.1f}ms")
"""


def test_compile_once_four_processes(tmp_path):
    """Four 'ranks' without MPI: one compiles, three wait on its lock and
    load; a function called by one rank only compiles there alone."""
    prog = write_prog(tmp_path, main=RANKS_MAIN, name="ranks.py")
    cd = tmp_path / "cache"
    outs = _finish(_start(prog, cd, 4))
    kinds = sorted(o.split()[2] for o, _ in outs)
    assert kinds == ["hit", "hit", "hit", "miss"], outs
    assert sum(compiles(subprocess.CompletedProcess([], 0, o, e)) for o, e in outs) == 1
    assert sum(compiles(subprocess.CompletedProcess([], 0, o, e), "only_here") for o, e in outs) == 1


HOLD_MAIN = """
import time
t0 = time.monotonic()
got = kern(ARG)
assert got == kern.py_func(ARG)
print("RESULT", repr(got), kern._infos[-1]["cache"], f"{time.monotonic() - t0:.2f}")
"""


def _entry_name(prog, cd):
    """The entry path a program's kern gets (from a first run), removed again."""
    run(prog, cd)
    (e,) = entries(cd)
    e.unlink()
    return e


def test_wait_times_out_on_a_held_lock(tmp_path):
    prog = write_prog(tmp_path, main=HOLD_MAIN, name="hold.py")
    cd = tmp_path / "cache"
    e = _entry_name(prog, cd)
    lock = e.parent / (e.name + ".lock")
    # held by a live process of this host (this test) that never finishes
    lock.write_text(f"{os.getpid()} {os.uname().nodename} {time.time()}\n")
    r = run(prog, cd, {"HPCJIT_CACHE_WAIT": "1.5"})
    waited = float(r.stdout.split()[3])
    assert 1.4 <= waited < 30, waited
    assert compiles(r) == 1
    assert "compiling here" in r.stderr
    assert lock.exists()  # not ours: left alone
    lock.unlink()


def test_stale_lock_of_dead_process(tmp_path):
    prog = write_prog(tmp_path, main=HOLD_MAIN, name="hold.py")
    cd = tmp_path / "cache"
    e = _entry_name(prog, cd)
    lock = e.parent / (e.name + ".lock")
    dead = subprocess.Popen(["true"])
    dead.wait()
    lock.write_text(f"{dead.pid} {os.uname().nodename} {time.time()}\n")
    r = run(prog, cd, {"HPCJIT_CACHE_WAIT": "60"})
    assert float(r.stdout.split()[3]) < 20
    assert compiles(r) == 1 and len(entries(cd)) == 1
    assert not lock.exists()


def test_old_lock_from_other_host_is_stale(tmp_path):
    prog = write_prog(tmp_path, main=HOLD_MAIN, name="hold.py")
    cd = tmp_path / "cache"
    e = _entry_name(prog, cd)
    lock = e.parent / (e.name + ".lock")
    lock.write_text(f"1 some-other-node {time.time() - 1000}\n")
    old = time.time() - 1000
    os.utime(lock, (old, old))
    r = run(prog, cd, {"HPCJIT_CACHE_WAIT": "60", "HPCJIT_CACHE_LOCK_STALE": "300"})
    assert float(r.stdout.split()[3]) < 20
    assert compiles(r) == 1


def test_compile_error_is_not_cached(tmp_path):
    body = BASE.replace("return x * K + 1.0", "return x * undefined_name")
    prog = write_prog(tmp_path, body)
    cd = tmp_path / "cache"
    for _ in range(2):
        r = run(prog, cd, check=False)
        assert r.returncode != 0 and "undefined_name" in r.stderr
    assert entries(cd) == []
    assert not list(cd.rglob("*.lock"))


# ---- management --------------------------------------------------------------------------

def _cli(cd, *args):
    r = subprocess.run([sys.executable, "-m", "hpcjit.cache", *args], capture_output=True,
                       text=True, env=dict(os.environ, HPCJIT_CACHE_DIR=str(cd),
                                           PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_management_command(tmp_path):
    cd = tmp_path / "cache"
    for i, (old, new) in enumerate(list(VARIANTS.values())[:3]):
        run(write_prog(tmp_path, BASE.replace(old, new), f"p{i}.py"), cd)
    items = json.loads(_cli(cd, "list", "--json"))
    assert len(items) == 3 and all(it["valid"] for it in items)
    assert {it["name"] for it in items} == {"__main__.kern"}
    assert "kern" in _cli(cd, "list")
    info = json.loads(_cli(cd, "info", "--json"))
    assert info["dir"] == str(cd) and info["entries"] == 3
    assert info["host_arch"] in info["arches"]
    assert "directory" in _cli(cd, "info")
    sizes = sorted(it["size"] for it in items)
    out = json.loads(_cli(cd, "prune", "--max-size", str(sizes[0] + sizes[1]), "--json"))
    assert len(out["removed"]) == 1
    assert len(entries(cd)) == 2
    out = json.loads(_cli(cd, "clear", "--json"))
    assert len(out["removed"]) == 2 and entries(cd) == []
    assert cache.parse_size("2G") == 2 << 30 and cache.parse_size("500k") == 500 << 10
    assert cache.parse_size("1.5MiB") == 3 << 19


# ---- latency -----------------------------------------------------------------------------

LATENCY_MAIN = """
import time
t0 = time.perf_counter()
got = kern(ARG)
t1 = time.perf_counter()
assert got == kern.py_func(ARG)

@njit(cache=True)
def second(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] > b:
            s += np.sqrt(a[i] - b)
    return s
t2 = time.perf_counter()
v = second(ARG, 2.0)
t3 = time.perf_counter()
assert abs(v - second.py_func(ARG, 2.0)) < 1e-9
print("RESULT", repr(got), kern._infos[-1]["cache"], f"{(t1 - t0) * 1e3:.3f}", f"{(t3 - t2) * 1e3:.3f}",
      second._infos[-1]["cache"])
"""


def test_hit_latency(tmp_path):
    """A cold process's first call with a warm cache, and a later function's
    first call in the same process, are both hits once a first process has
    compiled them.  The times are printed for reading only: the latency
    target (a hit at most 1/10 of the compile, below 2 ms) is measured by
    benchmarks/cache.py, not asserted on a shared machine."""
    prog = write_prog(tmp_path, main=LATENCY_MAIN, name="lat.py")
    cd = tmp_path / "cache"
    out = run(prog, cd).stdout.split()
    assert out[2] != "hit" and out[5] != "hit"
    miss = [float(x) for x in out[3:5]]
    best = None
    for _ in range(3):
        out = run(prog, cd).stdout.split()
        assert out[2] == "hit" and out[5] == "hit"
        t = [float(x) for x in out[3:5]]
        best = t if best is None else [min(a, b) for a, b in zip(best, t)]
    print(f"\nfirst call: compile {miss[0]:.2f} ms, hit {best[0]:.2f} ms; "
          f"second function: compile {miss[1]:.2f} ms, hit {best[1]:.2f} ms")


WARM_BODY = """
import numpy as np
from hpcjit import njit

@njit(["float64(float64[:])", "int64(int64[:])"])
def total(a):
    s = a[0] * 0
    for x in a:
        s += x
    return s

if __name__ == "__main__":
    for a in (np.arange(4.0), np.arange(4)):
        assert total(a) == total.py_func(a)
    print("RESULT", total(np.arange(4.0)), total._infos[0]["cache"])
"""


def test_warm(tmp_path):
    """`hpcjit cache warm SCRIPT` compiles the explicit signatures into the
    cache (without running the script's main part); the job then loads them."""
    prog = tmp_path / "warm_me.py"
    prog.write_text(textwrap.dedent(WARM_BODY))
    cd = tmp_path / "cache"
    out = json.loads(_cli(cd, "warm", str(prog), "--json"))
    assert out["compiled"] == 2 and out["loaded"] == 0
    out = json.loads(_cli(cd, "warm", str(prog), "--json"))
    assert out["compiled"] == 0 and out["loaded"] == 2
    r = run(prog, cd, {"HPCJIT_CACHE": "1"})
    assert "RESULT 6.0 hit" in r.stdout
    assert compiles(r, "total") == 0 and hits(r, "total") == 2


def test_node_local_default_on_network_home(tmp_path, monkeypatch):
    for v in ("HPCJIT_CACHE_DIR", "NUMBA_CACHE_DIR"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    monkeypatch.setenv("SLURM_TMPDIR", str(tmp_path / "local"))
    monkeypatch.setenv("USER", "alice")
    monkeypatch.setattr(cache, "_fs_type", lambda path: "ext4")
    assert cache.default_dir()[0] == str(tmp_path / "home-cache" / "hpcjit")
    monkeypatch.setattr(cache, "_fs_type", lambda path: "nfs4")
    d, why = cache.default_dir()
    assert d == str(tmp_path / "local" / "hpcjit-alice") and "nfs4" in why
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nb"))
    assert cache.default_dir() == (str(tmp_path / "nb"), "NUMBA_CACHE_DIR")
    monkeypatch.setenv("HPCJIT_CACHE_DIR", str(tmp_path / "hj"))
    assert cache.default_dir() == (str(tmp_path / "hj"), "HPCJIT_CACHE_DIR")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give files to another user")
def test_files_of_another_user(tmp_path):
    """The trust boundary: a directory or an entry owned by someone else is
    not used (the cache runs the code it loads)."""
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    first = run(prog, cd)
    (entry,) = entries(cd)
    os.chown(entry, 12345, 12345)
    r = run(prog, cd)
    assert "owned by uid 12345" in r.stderr and compiles(r) == 1
    assert r.stdout.split()[1] == first.stdout.split()[1]
    cd2 = tmp_path / "theirs"
    cd2.mkdir(mode=0o700)
    os.chown(cd2, 12345, 12345)
    r = run(prog, cd2)
    assert "belongs to uid 12345" in r.stderr and compiles(r) == 1
    assert entries(cd2) == []


# ---- the runtime's object loader (runtime/objload.c) ---------------------------------------

LOADER_BODY = """
import cmath, math, sys
import numpy as np
from hpcjit import njit, prange

@njit(cache=True)
def k_libm(a):
    s = 0.0
    for x in a:
        s += math.sin(x) + math.exp(-x) + math.atan2(x, 2.0) + x ** 3
    return s

@njit(cache=True)
def k_powi(x, n):
    return x ** n

@njit(cache=True)
def k_complex(a, b):
    return a / b + a * b

@njit(cache=True)
def k_raise(n):
    if n < 0:
        raise ValueError("negative n")
    return n * 2

@njit(cache=True, parallel=True)
def k_prange(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * 2.0
    return s

@njit(cache=True)
def k_array(n):
    out = np.empty((n, 3))
    for i in range(n):
        for j in range(3):
            out[i, j] = i * 3 + j
    return out.sum(axis=0)

@njit(cache=True)
def k_containers(n):
    l = [i * i for i in range(n)]
    d = {}
    for i in range(n):
        d[i % 7] = d.get(i % 7, 0) + l[i]
    t = 0
    for k in d:
        t += k * d[k]
    return t + len(set(l))

@njit(cache=True)
def k_const_tables(i):
    t = (1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5)
    return t[i % 8] * 2.0

a = np.linspace(0.0, 3.0, 101)
checks = [(k_libm, (a,)), (k_powi, (1.5, 7)), (k_complex, (1 + 2j, 3 - 1j)), (k_raise, (4,)),
          (k_prange, (a,)), (k_array, (9,)), (k_containers, (50,)), (k_const_tables, (13,))]
for f, args in checks:
    got, exp = f(*args), f.py_func(*args)
    assert np.allclose(got, exp, rtol=1e-12, atol=0), (f.__name__, got, exp)
try:
    k_raise(-1)
except ValueError as e:
    assert "negative n" in str(e)
else:
    raise AssertionError("no ValueError")
print("RESULT", " ".join(f._infos[-1]["cache"] for f, _ in checks), "llvm" if "hpcjit._compiler" in sys.modules else "nollvm", flush=True)
"""


def test_object_loader_hits_without_llvm(tmp_path):
    """Objects of every kind of code (libm calls, compiler-rt helpers,
    complex numbers, exceptions, prange, arrays, containers, constant
    tables) loaded by the runtime's ELF loader in a fresh process: right
    results, and libLLVM never imported."""
    prog = write_prog(tmp_path, body=LOADER_BODY, main="", name="loader.py")
    cd = tmp_path / "cache"
    r1 = run(prog, cd)
    assert r1.stdout.split()[1:9] == ["miss"] * 8, r1.stdout
    r2 = run(prog, cd)
    out = r2.stdout.split()
    assert out[1:9] == ["hit"] * 8, r2.stdout + r2.stderr
    assert out[9] == "nollvm", r2.stderr
    assert "(0 through LLVM)" in r2.stderr, r2.stderr
    # forced through LLVM: the same results
    r3 = run(prog, cd, env={"HPCJIT_OBJECT_LOADER": "llvm"})
    assert r3.stdout.split()[1:9] == ["hit"] * 8
    assert "(8 through LLVM)" in r3.stderr, r3.stderr


def test_target_memo_written_and_used(tmp_path):
    """The node's target info is kept beside the entries and read back."""
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    run(prog, cd)
    memos = list((cd / "targets").glob("*.target"))
    assert len(memos) == 1
    r = run(prog, cd)
    assert hits(r) == 1
    # a damaged memo is ignored (and the target asked of LLVM again)
    memos[0].write_bytes(b"garbage")
    r = run(prog, cd)
    assert hits(r) == 1
    # cache clear removes it too
    subprocess.run([sys.executable, "-m", "hpcjit.cache", "clear"], check=True, capture_output=True,
                   env=dict(os.environ, HPCJIT_CACHE_DIR=str(cd),
                            PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert not list((cd / "targets").glob("*.target"))


GARBAGE_MAIN = """
import random, sys
from hpcjit import _core
obj = open(sys.argv[1], "rb").read()
sym = sys.argv[2]
assert _core._load_object(obj, sym)
rng = random.Random(7)
refused = 0
for n in (0, 1, 16, 63, 64, len(obj) // 2, len(obj) - 1):
    try:
        _core._load_object(obj[:n], sym)
    except ImportError:
        refused += 1
for _ in range(3000):
    b = bytearray(obj)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(64) if rng.random() < 0.3 else rng.randrange(len(b))
        b[i] = rng.randrange(256)
    try:
        _core._load_object(bytes(b), sym)  # loaded or refused: never run
    except ImportError:
        refused += 1
try:
    _core._load_object(obj, "no_such_symbol")
except ImportError as e:
    assert "does not define" in str(e)
print("RESULT", refused)
"""


def test_object_loader_refuses_damaged_objects(tmp_path):
    """Truncated and randomly damaged objects are refused with a reason
    or loaded (never run), never a crash."""
    prog = write_prog(tmp_path)
    cd = tmp_path / "cache"
    run(prog, cd)
    (entry,) = entries(cd)
    _, meta, obj = cache.decode(entry.read_bytes())
    objfile = tmp_path / "k.o"
    objfile.write_bytes(obj)
    p = tmp_path / "garbage.py"
    p.write_text(GARBAGE_MAIN)
    e = dict(os.environ, PYTHONPATH=os.pathsep.join(q for q in sys.path if q))
    r = subprocess.run([sys.executable, str(p), str(objfile), meta["entry_symbol"]], env=e,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert int(r.stdout.split()[1]) >= 7


GEN_BODY = """
import sys
import gc
import numpy as np
import hpcjit
from hpcjit import njit

@njit(cache=True)
def gen(a):
    b = a + 1.0
    for i in range(b.shape[0]):
        yield b[i]

@njit(cache=True)
def use(a):
    g = gen(a)
    s = next(g)
    for v in g:
        s += v
    return s, gen(a)

a = np.arange(4.0)
gc.collect()
before = hpcjit._core.memstats()
s, g = use(a)
assert s == use.py_func(a)[0], s
assert list(g) == [1.0, 2.0, 3.0, 4.0]
lazy = gen(a)
assert next(lazy) == 1.0
del g, lazy
gc.collect()
after = hpcjit._core.memstats()
assert after[0] - before[0] == after[1] - before[1], (before, after)
print("RESULT", use._infos[-1]["cache"], gen._infos[-1]["cache"],
      "nollvm" if "hpcjit._compiler" not in sys.modules else "llvm", flush=True)
"""


def test_generator_objects_cached(tmp_path):
    """Coroutines (their resume/destroy clones reached through function
    pointers stored in the generator object) survive the object file, the
    cache and both loaders."""
    prog = write_prog(tmp_path, body=GEN_BODY, main="", name="gens.py")
    cd = tmp_path / "cache"
    r1 = run(prog, cd)
    assert r1.stdout.split()[1:3] == ["miss", "miss"], r1.stdout
    r2 = run(prog, cd)
    assert r2.stdout.split()[1:4] == ["hit", "hit", "nollvm"], r2.stdout + r2.stderr
    r3 = run(prog, cd, env={"HPCJIT_OBJECT_LOADER": "llvm"})
    assert r3.stdout.split()[1:3] == ["hit", "hit"], r3.stdout + r3.stderr


OVERLOAD_BODY = """
import numpy as np
from hpcjit import njit
from hpcjit import types
from hpcjit.extending import overload, overload_method

def clipped(x, hi):
    return min(x, hi)

@overload(clipped)
def _clipped(x, hi):
    if isinstance(x, types.Float):
        def impl(x, hi):
            return x if x < hi else hi
        return impl

@overload_method(types.Array, "halfsum")
def _halfsum(a):
    def impl(a):
        return a.sum() * SCALE
    return impl

SCALE = 0.5

@njit(cache=True)
def kern(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += clipped(a[i], 7.5)
    return s + a.halfsum()

def py(a):
    return sum(min(x, 7.5) for x in a) + a.sum() * SCALE

ARG = np.arange(20.0)
"""

OVERLOAD_MAIN = """
got = kern(ARG)
assert abs(got - py(ARG)) < 1e-9, (got, py(ARG))
print("RESULT", repr(got), kern._infos[-1]["cache"], flush=True)
"""


def test_overloads_are_cached(tmp_path):
    """Code calling an overload and an overload_method is stored and hit;
    a change to an implementation's frozen global (or source) is a miss."""
    prog = write_prog(tmp_path, body=OVERLOAD_BODY, main=OVERLOAD_MAIN)
    cd = tmp_path / "cache"
    assert run(prog, cd).stdout.split()[2] == "miss"
    assert run(prog, cd).stdout.split()[1:3] == [repr(118.0 + 95.0), "hit"]
    prog.write_text(prog.read_text().replace("SCALE = 0.5", "SCALE = 0.25"))
    out = run(prog, cd).stdout.split()
    assert out[1:3] == [repr(118.0 + 47.5), "miss"]
    prog.write_text(prog.read_text().replace("return x if x < hi else hi", "return hi if x >= hi else x"))
    assert run(prog, cd).stdout.split()[2] == "miss"
    assert run(prog, cd).stdout.split()[2] == "hit"
