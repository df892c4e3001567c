"""hpcjit.cache: compiled specialisations on disk, safe on clusters.

`@njit(cache=True)`, or `HPCJIT_CACHE=1` for every function (`0` turns the
cache off even for cache=True), keeps each specialisation's object code in
a file keyed by a hash of everything that decides it (compiler.gather()'s
`funcs`: the source of the entry and of every reachable jitted function,
lifted inner functions included, the frozen values of their globals and
their options; the argument typecodes and explicit return type; hpcjit's
version and build; the LLVM version; the target triple, CPU, features and
optimisation level).  A later process with the same key loads the object
with its own ELF loader (load_object()) instead of compiling.

Layout: DIR/<arch>/<name>-<key>.hjc, DIR from HPCJIT_CACHE_DIR (or
NUMBA_CACHE_DIR), else $XDG_CACHE_HOME/hpcjit (~/.cache/hpcjit), or a
node-local directory when that is on a network file system; <arch> is the
CPU name plus a hash of triple, CPU and features, so one directory can
serve a heterogeneous cluster.  docs/CACHE.md has the file format, the
locking protocol and the trust boundary.

    python -m hpcjit.cache list|info|clear|prune --max-size 1G [--json]
    python -m hpcjit.cache warm SCRIPT.py | -m MODULE
"""
import marshal
import os
import re
import struct
import sys
import time

try:  # hashlib imports OpenSSL (~3 ms): a cold process's first hit should not
    from _blake2 import blake2b as _blake2b
except ImportError:
    from hashlib import blake2b as _blake2b

FORMAT = 1
MAGIC = b"HPCJITC\x00"
# magic, format, meta length, object length, key (32 bytes), blake2b-256 of
# key+meta+object; the metadata is a marshal'd dict (no import on a hit), read
# only once the checksum holds
_HEADER = struct.Struct("<8sIIQ32s32s")
SUFFIX = ".hjc"

# counts for HPCJIT_DEBUG_COMPILE and the tests; load_s is the time spent in
# hits (read, check, load)
stats = {"hits": 0, "misses": 0, "writes": 0, "rejected": 0, "waited": 0, "wait_timeouts": 0,
         "load_s": 0.0, "llvm_loads": 0}

_state = {}  # per process: target info, build stamp, directory


# ---- configuration ------------------------------------------------------------------------

def enabled(disp=None):
    """HPCJIT_CACHE=1: every function; =0: none; unset: the cache= option."""
    v = os.environ.get("HPCJIT_CACHE", "").strip().lower()
    if v:
        return v not in ("0", "false", "no", "off")
    return bool(disp is not None and disp.targetoptions.get("cache"))


def _wait_seconds():
    try:
        return max(float(os.environ.get("HPCJIT_CACHE_WAIT", "60")), 0.0)
    except ValueError:
        return 60.0


_SHARED_FS = ("nfs", "nfs4", "lustre", "gpfs", "beegfs", "cifs", "smb3", "fuse.sshfs",
              "ceph", "fuse.glusterfs", "glusterfs", "panfs", "pvfs2", "orangefs", "afs")


def _fs_type(path):
    """The file system type of the mount holding `path` (/proc/mounts), or ''."""
    try:
        with open("/proc/mounts") as f:
            mounts = [line.split()[1:3] for line in f if len(line.split()) >= 3]
    except OSError:
        return ""
    path = os.path.realpath(path)
    best, kind = "", ""
    for mnt, fstype in mounts:
        mnt = mnt.replace("\\040", " ")
        if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
            best, kind = mnt, fstype
    return kind


def _node_local_dir():
    tmp = os.environ.get("SLURM_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or str(os.getuid())
    return os.path.join(tmp, f"hpcjit-{user}")


def default_dir():
    """(directory, why): HPCJIT_CACHE_DIR, NUMBA_CACHE_DIR, $XDG_CACHE_HOME/hpcjit,
    ~/.cache/hpcjit; the last two are replaced by a node-local directory when
    they sit on a network file system (every rank writing there is what breaks
    Numba's cache on NFS/Lustre)."""
    for var in ("HPCJIT_CACHE_DIR", "NUMBA_CACHE_DIR"):
        v = os.environ.get(var)
        if v:
            return os.path.abspath(os.path.expanduser(v)), var
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    d = os.path.join(base, "hpcjit")
    probe = base
    while probe and not os.path.exists(probe):
        probe = os.path.dirname(probe)
    fs = _fs_type(probe or "/")
    if fs in _SHARED_FS or fs.startswith("fuse.") and "sshfs" in fs:
        return _node_local_dir(), f"node-local ({base} is on {fs})"
    return d, "XDG_CACHE_HOME" if os.environ.get("XDG_CACHE_HOME") else "~/.cache"


def _hostname():
    return os.uname().nodename


_SLUG_OK = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-")


def _slug(text, limit=60):
    # not re.sub: compiling the pattern costs a cold process's hit ~0.3 ms
    return "".join(c if c in _SLUG_OK else "_" for c in text)[:limit] or "_"


_TARGET_VARS = ("HPCJIT_CPU_NAME", "NUMBA_CPU_NAME", "HPCJIT_CPU_FEATURES", "NUMBA_CPU_FEATURES",
                "HPCJIT_OPT", "NUMBA_OPT", "HPCJIT_DISABLE_VECTOR_MATH", "NUMBA_DISABLE_INTEL_SVML")


def _target():
    """_compiler.target_info(): what the code generator will use, read again
    when one of the variables it reads changes (the compiler reads them at
    every compilation).  libLLVM takes milliseconds to load, more than a
    whole cache hit may cost, so the answer is also kept in the cache
    directory under a fingerprint of this node's CPU (see _node_fingerprint):
    a later process on the same kind of node reads it from there."""
    k = ("target",) + tuple(os.environ.get(v) for v in _TARGET_VARS)
    t = _state.get(k)
    if t is None:
        memo = _target_memo_path(k)
        t = _read_target_memo(memo)
        if t is None:
            from . import _compiler
            t = _compiler.target_info()
            _write_target_memo(memo, t)
        _state[k] = t
    return t


# /proc/cpuinfo lines that differ between the cores of one node or over time
_CPUINFO_VOLATILE = ("processor", "cpu mhz", "core id", "apicid", "initial apicid", "physical id",
                     "siblings", "cpu cores", "bogomips", "microcode")


def _cpu_identity():
    """The first processor's block of /proc/cpuinfo without the per-core and
    changing lines: vendor, family, model, stepping and flags on x86 (what
    LLVM's host detection reads through cpuid), implementer, part and
    Features on Arm; '' where there is no /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo", "rb") as f:
            head = f.read(65536).decode("ascii", "replace")
    except OSError:
        return ""
    block = head.split("\n\n", 1)[0]
    keep = []
    for line in block.splitlines():
        name = line.split(":", 1)[0].strip().lower()
        if name and name not in _CPUINFO_VOLATILE:
            keep.append(line.strip())
    return "\n".join(keep)


def _node_fingerprint(k):
    """A hash of what decides target_info() on this node: the CPU, the
    machine, the variables that override it and the compiler's build."""
    u = os.uname()
    text = repr((FORMAT, _build_stamp(), u.machine, u.sysname, _cpu_identity(), k))
    return _blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _target_memo_path(k):
    if os.environ.get("HPCJIT_CACHE_TARGET_MEMO", "1") == "0" or not _cpu_identity():
        return None
    try:
        root, _ = default_dir()
    except Exception:  # noqa: BLE001 - no home directory: no memo
        return None
    return os.path.join(root, "targets", _node_fingerprint(k) + ".target")


def _read_target_memo(path):
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        data = os.read(fd, 1 << 16) if st.st_uid == os.geteuid() else b""
    finally:
        os.close(fd)
    try:
        t = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(t, dict) or not all(isinstance(t.get(n), str) for n in ("triple", "cpu", "features")):
        return None
    return t


def _write_target_memo(path, t):
    if path is None or not _trusted_dir(os.path.dirname(os.path.dirname(path))):
        return
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        _write(path, marshal.dumps(t, 4))
    except (OSError, ValueError):
        pass


def arch_dir_name(t=None):
    """<cpu>-<hash of triple, cpu, features>: the architecture's subdirectory."""
    t = t or _target()
    h = _blake2b(f"{t['triple']}\0{t['cpu']}\0{t['features']}".encode(),
                        digest_size=6).hexdigest()
    return f"{_slug(t['cpu'], 32)}-{h}"


def _build_stamp():
    """hpcjit's version, and the size and time of the two extension modules:
    a rebuilt compiler or runtime (same version string during development)
    is a different compiler.  Found without importing _compiler (libLLVM)."""
    s = _state.get("build")
    if s is None:
        import importlib.util
        from . import __version__
        parts = [__version__]
        for name in ("hpcjit._compiler", "hpcjit._core"):
            try:
                path = importlib.util.find_spec(name).origin
                st = os.stat(path)
                parts.append(f"{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns}")
            except (OSError, AttributeError, TypeError, ImportError):
                parts.append(name)
        import numpy
        parts.append(f"numpy {numpy.__version__}")
        parts.append("python %d.%d" % sys.version_info[:2])
        s = _state["build"] = "|".join(parts)
    return s


def cache_key(funcs, entry, argcodes, rettype):
    """blake2b-256 over everything that decides the object code."""
    t = _target()
    text = repr((FORMAT, _build_stamp(), tuple(t.get("llvm_version", ())), t["triple"], t["cpu"],
                 t["features"], t["opt_level"], t.get("vector_math"), funcs, entry, tuple(argcodes),
                 rettype))
    return _blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32).digest()


# ---- the directory ------------------------------------------------------------------------

_untrusted_warned = set()


def _trusted_dir(path):
    """Create `path` (0700) if needed; True when it belongs to this user and
    nobody else may write to it: the cache runs the code it finds there."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError as exc:
        why = f"cannot create it ({exc.strerror})"
    else:
        if st.st_uid != os.geteuid():
            why = f"it belongs to uid {st.st_uid}, not to this user"
        elif st.st_mode & 0o022:
            why = f"it is writable by others (mode {st.st_mode & 0o777:o})"
        else:
            return True
    if path not in _untrusted_warned:
        _untrusted_warned.add(path)
        import warnings
        warnings.warn(f"hpcjit: not using the compile cache {path}: {why}", RuntimeWarning,
                      stacklevel=4)
    return False


def arch_dir():
    """The directory of this process's architecture, or None when it cannot
    be used (created and checked once per process and directory)."""
    env = os.environ
    k = ("dir", env.get("HPCJIT_CACHE_DIR"), env.get("NUMBA_CACHE_DIR"), env.get("XDG_CACHE_HOME"),
         env.get("HOME"), arch_dir_name())
    got = _state.get(k)
    if got is None:
        root, _ = default_dir()
        d = os.path.join(root, k[-1])
        got = _state[k] = (d, _trusted_dir(root) and _trusted_dir(d))
    return got[0] if got[1] else None


def _forget_dirs():
    """The directory went away (removed by hand): check it again next time."""
    for k in [k for k in _state if isinstance(k, tuple) and k[0] == "dir"]:
        del _state[k]


# ---- entries ------------------------------------------------------------------------------

def _checksum(key, meta, obj):
    h = _blake2b(digest_size=32)
    h.update(key)
    h.update(meta)
    h.update(obj)
    return h.digest()


def encode(key, meta, obj):
    """The bytes of an entry: header, JSON metadata, object code."""
    m = marshal.dumps(meta, 4)
    return _HEADER.pack(MAGIC, FORMAT, len(m), len(obj), key, _checksum(key, m, obj)) + m + obj


def decode(data, key=None):
    """(key, meta, object) of an entry's bytes; ValueError saying why it is
    rejected (bad magic or format, truncated, wrong key, checksum)."""
    if len(data) < _HEADER.size:
        raise ValueError("truncated header")
    magic, fmt, mlen, olen, k, csum = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ValueError("not an hpcjit cache entry")
    if fmt != FORMAT:
        raise ValueError(f"format {fmt}, expected {FORMAT}")
    if len(data) != _HEADER.size + mlen + olen:
        raise ValueError(f"size {len(data)}, header says {_HEADER.size + mlen + olen}")
    if key is not None and k != key:
        raise ValueError("key differs from its name")
    m = data[_HEADER.size:_HEADER.size + mlen]
    obj = data[_HEADER.size + mlen:]
    if _checksum(k, m, obj) != csum:
        raise ValueError("checksum mismatch")
    meta = marshal.loads(m)
    if not isinstance(meta, dict):
        raise ValueError("bad metadata")
    return k, meta, obj


def _read(path, key):
    """The entry at `path` as (meta, object, stat), or None when absent or
    rejected (a rejected file is removed, unless it was replaced meanwhile)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            why = f"owned by uid {st.st_uid}"
        else:
            chunks = []
            while True:
                b = os.read(fd, max(st.st_size + 1, 65536))
                if not b:
                    break
                chunks.append(b)
            try:
                _, meta, obj = decode(b"".join(chunks), key)
                return meta, obj, st
            except (ValueError, EOFError, TypeError) as exc:
                why = str(exc)
    finally:
        os.close(fd)
    _reject(path, st, why)
    return None


def _reject(path, st, why):
    stats["rejected"] += 1
    if _debug():
        print(f"hpcjit: cache: rejected {path}: {why}", file=sys.stderr)
    try:
        now = os.stat(path)
        if (now.st_ino, now.st_dev) == (st.st_ino, st.st_dev):
            os.unlink(path)
    except OSError:
        pass


def _write(path, data):
    """Write to a temporary name in the same directory, fsync, rename: a
    reader sees the old entry, no entry or the whole new one, never a part."""
    d, base = os.path.split(path)
    tmp = os.path.join(d, f".{base}.tmp.{_hostname()}.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


# ---- the lock of a missing entry ----------------------------------------------------------

def _lock_stale_seconds():
    try:
        return float(os.environ["HPCJIT_CACHE_LOCK_STALE"])
    except (KeyError, ValueError):
        pass
    return max(_wait_seconds(), 10.0) * 2


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # EPERM: someone else's process
    return True


def _try_lock(lock):
    """Create the lock file (O_EXCL) holding 'pid host time'; True if ours."""
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError:
        return False  # read-only directory and the like: compile without a lock
    try:
        os.write(fd, f"{os.getpid()} {_hostname()} {time.time():.3f}\n".encode())
    finally:
        os.close(fd)
    return True


def _lock_state(lock):
    """'absent', 'held' or 'stale' (its process died on this host, or it is
    older than HPCJIT_CACHE_LOCK_STALE), with the stat of the lock file."""
    try:
        st = os.stat(lock)
        with open(lock) as f:
            text = f.read(200)
    except FileNotFoundError:
        return "absent", None
    except OSError:
        return "held", None
    if time.time() - st.st_mtime > _lock_stale_seconds():
        return "stale", st
    parts = text.split()
    if len(parts) < 3 or not parts[0].isdigit():
        # killed while writing its line: give its owner a few seconds
        return ("stale" if time.time() - st.st_mtime > 5 else "held"), st
    if parts[1] == _hostname() and not _pid_alive(int(parts[0])):
        return "stale", st
    return "held", st


def _break_lock(lock, st):
    """Remove a stale lock, and only that one: it is renamed aside first and
    put back if it turns out to be a fresh lock taken meanwhile."""
    aside = f"{lock}.stale.{os.getpid()}.{os.urandom(3).hex()}"
    try:
        os.rename(lock, aside)
    except OSError:
        return
    try:
        now = os.stat(aside)
        if (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
            try:
                os.link(aside, lock)  # not ours to break: put it back unless replaced
            except OSError:
                pass
    except OSError:
        pass
    _unlink(aside)


# ---- compile through the cache ------------------------------------------------------------

def _debug():
    from . import config
    return config._env_bool("DEBUG_COMPILE", config.DEBUG_COMPILE)


def _name(disp):
    f = disp.py_func
    return f"{getattr(f, '__module__', None) or '_'}.{f.__qualname__}"


def _entry_path(d, disp, key):
    # the qualname only: `python -m hpcjit.cache warm` runs a script under
    # another module name than __main__ (the key decides, the name helps people)
    return os.path.join(d, f"{_slug(disp.py_func.__qualname__)}-{key.hex()}{SUFFIX}")


def _load(path, key, t0, disp, how, check=None):
    got = _read(path, key)
    if got is None:
        return None
    meta, obj, st = got
    if check is not None and not check(meta):  # overloads resolved otherwise here: a miss
        if _debug():
            print(f"hpcjit: cache: {path}: its overloads resolve to other code here", file=sys.stderr)
        return None
    try:
        addr = load_object(obj, meta["entry_symbol"])
    except Exception as exc:  # an object LLVM refuses: recompile and replace it
        _reject(path, st, f"cannot be loaded: {exc}")
        return None
    dt = time.perf_counter() - t0
    stats["hits"] += 1
    stats["load_s"] += dt
    if how == "waited":
        stats["waited"] += 1
    if _debug():
        extra = " after waiting for another process" if how == "waited" else ""
        print(f"hpcjit: cache hit {disp.py_func.__qualname__} {meta.get('signature')}: "
              f"{len(obj)} bytes loaded in {dt * 1e3:.2f} ms{extra} ({path})", file=sys.stderr)
    return {"address": addr, "entry_symbol": meta["entry_symbol"], "rettype": meta["rettype"],
            "signature": meta["signature"], "uses_mpi": bool(meta.get("uses_mpi")),
            "object": obj, "llvm_ir": None, "types_text": None, "time_frontend": 0.0,
            "time_llvm": 0.0, "cache": "hit", "cache_path": path}


def load_object(obj, symbol):
    """The address of `symbol` in object bytes: loaded by the runtime's own
    ELF loader (no libLLVM: milliseconds less), or through LLVM's JIT where
    that loader refuses the object (another machine, a relocation it does
    not know; HPCJIT_OBJECT_LOADER=llvm forces it)."""
    if os.environ.get("HPCJIT_OBJECT_LOADER", "").lower() != "llvm":
        from . import _core
        try:
            return _core._load_object(obj, symbol)
        except ImportError as exc:
            if _debug():
                print(f"hpcjit: object loader: {exc}; loading through LLVM", file=sys.stderr)
    stats["llvm_loads"] += 1
    from . import _compiler
    return _compiler.load(obj, symbol)


def _wait(path, key, lock, t0, disp, check=None):
    """Wait for the process holding `lock` to write the entry.  Returns
    (result or None, whether we took the lock)."""
    deadline = time.monotonic() + _wait_seconds()
    delay = 0.002
    while True:
        res = _load(path, key, t0, disp, "waited", check)
        if res is not None:
            return res, False
        state, st = _lock_state(lock)
        if state == "stale":
            _break_lock(lock, st)
            state = "absent"
        if state == "absent":
            # the holder finished without an entry (a compile error: we raise
            # it too) or died: take over
            res = _load(path, key, t0, disp, "waited", check)
            if res is not None:
                return res, False
            return None, _try_lock(lock)
        if time.monotonic() >= deadline:
            stats["wait_timeouts"] += 1
            if _debug():
                print(f"hpcjit: cache: waited {_wait_seconds():g} s for {path}: compiling here",
                      file=sys.stderr)
            return None, False
        time.sleep(delay)
        delay = min(delay * 1.5, 0.05)


def compile_cached(disp, funcs, entry, argcodes, rettype, compile_fn, check=None):
    """compile_fn() through the cache: a hit loads the stored object; a
    miss takes the entry's lock (or waits for the process holding it, up to
    HPCJIT_CACHE_WAIT seconds), compiles and stores.

    Code calling overloads is keyed before their resolution (a fresh
    process has resolved nothing yet): the entry also records the
    resolutions its compilation made and the key of the code after them,
    and check(meta) (compiler._SameResolutions) redoes them and compares,
    so that a changed implementation or typing choice is a miss."""
    t0 = time.perf_counter()
    d = arch_dir()
    if d is None:
        return compile_fn()
    key = cache_key(funcs, entry, argcodes, rettype)
    path = _entry_path(d, disp, key)
    res = _load(path, key, t0, disp, "hit", check)
    if res is not None:
        return res
    lock = path + ".lock"
    mine = _try_lock(lock)
    if not mine:
        res, mine = _wait(path, key, lock, t0, disp, check)
        if res is not None:
            return res
    try:
        if mine:  # written between our first look and the lock
            res = _load(path, key, t0, disp, "hit", check)
            if res is not None:
                return res
        stats["misses"] += 1
        res = compile_fn()
        resolutions = res.pop("resolutions", [])
        final = res.pop("final_funcs", None)
        if resolutions is None:  # literal requests on the way: not stored
            res["cache"] = None
            return res
        # overloads resolved while checking an entry of other code, then this
        # compilation's own (compiler._SameResolutions)
        resolutions = list(getattr(check, "pairs", [])) + list(resolutions)
        meta = {"entry_symbol": res["entry_symbol"], "rettype": res["rettype"],
                "signature": res["signature"], "uses_mpi": bool(res.get("uses_mpi")),
                "name": _name(disp), "file": funcs[entry][2], "argcodes": list(argcodes),
                "explicit_rettype": rettype,
                "created": time.time(), "host": _hostname(),
                "compile_s": (res.get("time_frontend") or 0.0) + (res.get("time_llvm") or 0.0)}
        if resolutions and final is not None:
            meta["resolved"] = [list(r) for r in resolutions]
            meta["resolved_key"] = cache_key(final[0], final[1], argcodes, rettype).hex()
        try:
            _write(path, encode(key, meta, res["object"]))
            stats["writes"] += 1
        except OSError as exc:  # a full or read-only disk costs the cache, not the program
            if isinstance(exc, FileNotFoundError):
                _forget_dirs()
            if _debug():
                print(f"hpcjit: cache: cannot write {path}: {exc}", file=sys.stderr)
        res["cache"] = "miss"
        res["cache_path"] = path
        return res
    finally:
        if mine:
            _unlink(lock)


def _report_at_exit():
    if stats["hits"] or stats["misses"] or stats["rejected"]:
        print(f"hpcjit: cache: {stats['hits']} hit(s) ({stats['waited']} after waiting), "
              f"{stats['misses']} miss(es), {stats['writes']} written, {stats['rejected']} rejected, "
              f"{stats['wait_timeouts']} wait timeout(s); {stats['load_s'] * 1e3:.2f} ms loading"
              f" ({stats['llvm_loads']} through LLVM)",
              file=sys.stderr)


if _debug():
    import atexit
    atexit.register(_report_at_exit)


# ---- management: python -m hpcjit.cache ---------------------------------------------------

def _entries(root):
    """(arch, path, stat) of every entry under root."""
    out = []
    try:
        arches = sorted(os.listdir(root))
    except OSError:
        return out
    for arch in arches:
        d = os.path.join(root, arch)
        if not os.path.isdir(d) or os.path.islink(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(SUFFIX) and not name.startswith("."):
                p = os.path.join(d, name)
                try:
                    out.append((arch, p, os.lstat(p)))
                except OSError:
                    pass
    return out


def _leftovers(root, max_age):
    """Temporary files and locks older than max_age seconds (left by killed
    processes)."""
    out = []
    now = time.time()
    try:
        arches = os.listdir(root)
    except OSError:
        return out
    for arch in arches:
        d = os.path.join(root, arch)
        if not os.path.isdir(d) or os.path.islink(d):
            continue
        for name in os.listdir(d):
            if ".tmp." in name or name.endswith(".lock") or ".lock.stale." in name:
                p = os.path.join(d, name)
                try:
                    if now - os.lstat(p).st_mtime > max_age:
                        out.append(p)
                except OSError:
                    pass
    return out


def _target_memos(root):
    """The target-info memos (see _target()) under root."""
    d = os.path.join(root, "targets")
    try:
        return [os.path.join(d, n) for n in os.listdir(d) if n.endswith(".target")]
    except OSError:
        return []


def _describe(arch, path, st):
    item = {"arch": arch, "path": path, "size": st.st_size, "mtime": st.st_mtime}
    try:
        with open(path, "rb") as f:
            data = f.read()
        _, meta, _ = decode(data)
        item.update(name=meta.get("name"), file=meta.get("file"), signature=meta.get("signature"),
                    compile_s=meta.get("compile_s"), valid=True)
    except (OSError, ValueError, EOFError, TypeError) as exc:
        item.update(valid=False, error=str(exc))
    return item


def parse_size(text):
    """'500M', '2G', '64k', '1000' (bytes) -> bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(i?[bB])?\s*", text)
    if not m:
        raise ValueError(f"invalid size {text!r} (e.g. 500M, 2G)")
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * mult)


def _human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def _warm(args, root):
    """Import a script or module with every function cached, so that its
    explicit signatures compile (or load) now: a build step of a batch
    script, before the ranks start.  Functions without signatures compile
    on first call as usual (then once per architecture, through the lock)."""
    import json
    import runpy
    if bool(args.module) == bool(args.script):
        print("hpcjit cache warm: give a script or -m MODULE", file=sys.stderr)
        return 2
    os.environ["HPCJIT_CACHE"] = "1"
    t0 = time.perf_counter()
    if args.module:
        runpy.run_module(args.module, run_name="__hpcjit_warm__", alter_sys=True)
        what = args.module
    else:
        what = os.path.abspath(args.script)
        sys.path.insert(0, os.path.dirname(what))
        runpy.run_path(what, run_name="__hpcjit_warm__")
    # under `python -m hpcjit.cache` this module is __main__; the compile
    # path counted in hpcjit.cache
    from hpcjit.cache import stats as counts
    out = {"source": what, "dir": root, "compiled": counts["misses"], "loaded": counts["hits"],
           "rejected": counts["rejected"], "seconds": time.perf_counter() - t0}
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(f"warmed {root} from {what}: {out['compiled']} compiled, {out['loaded']} already "
              f"there ({out['seconds']:.2f} s)")
    return 0


def main(argv=None):
    import argparse
    import json
    p = argparse.ArgumentParser(prog="hpcjit cache", description="hpcjit's compile cache")
    p.add_argument("--dir", help="cache directory (default: HPCJIT_CACHE_DIR, ...)")
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("warm", help="fill the cache with the functions of a script or module "
                       "that have explicit signatures (compiled at decoration)")
    w.add_argument("-m", dest="module", help="a module name instead of a script")
    w.add_argument("script", nargs="?", help="a Python file, run as a module named "
                   "'__hpcjit_warm__' (its `if __name__ == \"__main__\":` part does not run)")
    w.add_argument("--json", action="store_true", help="print JSON")
    for name, help_ in (("list", "list the entries"), ("info", "directory, size, architectures"),
                        ("clear", "remove every entry"), ("prune", "remove old entries")):
        sp = sub.add_parser(name, help=help_)
        sp.add_argument("--json", action="store_true", help="print JSON")
        if name == "prune":
            sp.add_argument("--max-size", required=True, type=parse_size,
                            help="keep the most recently used entries up to SIZE (500M, 2G)")
        if name in ("list", "clear", "prune"):
            sp.add_argument("--arch", help="only this architecture's subdirectory "
                            "('host': this machine's)")
    args = p.parse_args(argv)
    if args.dir:
        os.environ["HPCJIT_CACHE_DIR"] = os.path.abspath(args.dir)
    root, why = default_dir()
    if args.dir:
        why = "--dir"
    if args.cmd == "warm":
        return _warm(args, root)
    arch = getattr(args, "arch", None)
    if arch == "host":
        arch = arch_dir_name()
    entries = [e for e in _entries(root) if arch is None or e[0] == arch]
    out = sys.stdout

    if args.cmd == "list":
        items = [_describe(*e) for e in entries]
        if args.json:
            json.dump(items, out, indent=1)
            out.write("\n")
        else:
            for it in items:
                what = f"{it.get('name')} {it.get('signature')}  [{it.get('file')}]" if it["valid"] else \
                    f"(invalid: {it['error']})"
                out.write(f"{it['arch']}  {_human(it['size']):>10}  {what}\n")
            out.write(f"{len(items)} entries, {_human(sum(i['size'] for i in items))}\n")
        return 0

    if args.cmd == "info":
        per = {}
        for a, _, st in entries:
            n, s = per.get(a, (0, 0))
            per[a] = (n + 1, s + st.st_size)
        try:
            host = arch_dir_name()
        except Exception:  # no compiler: still report the directory
            host = None
        info = {"dir": root, "chosen_by": why, "enabled": enabled(),
                "enabled_by": "HPCJIT_CACHE" if os.environ.get("HPCJIT_CACHE") else "cache=True",
                "host_arch": host, "filesystem": _fs_type(root if os.path.exists(root) else "/"),
                "entries": len(entries), "size": sum(st.st_size for _, _, st in entries),
                "arches": {a: {"entries": n, "size": s} for a, (n, s) in sorted(per.items())},
                "wait_s": _wait_seconds()}
        if args.json:
            json.dump(info, out, indent=1)
            out.write("\n")
        else:
            out.write(f"directory    {root} ({why}, {info['filesystem'] or 'unknown'} file system)\n")
            out.write(f"enabled      {'every function (HPCJIT_CACHE)' if info['enabled'] else 'functions with cache=True'}\n")
            out.write(f"this node    {host}\n")
            out.write(f"entries      {len(entries)}, {_human(info['size'])}\n")
            for a, v in info["arches"].items():
                out.write(f"  {a}{' (this node)' if a == host else ''}: {v['entries']} entries, "
                          f"{_human(v['size'])}\n")
        return 0

    removed, freed = [], 0
    if args.cmd == "clear":
        victims = entries
        leftovers = _leftovers(root, 0) + _target_memos(root) if arch is None else []
    else:  # prune: least recently used first (atime when the mount keeps it)
        victims = []
        total = sum(st.st_size for _, _, st in entries)
        for e in sorted(entries, key=lambda e: max(e[2].st_atime, e[2].st_mtime)):
            if total <= args.max_size:
                break
            victims.append(e)
            total -= e[2].st_size
        leftovers = _leftovers(root, 3600)
    for _, path, st in victims:
        try:
            os.unlink(path)
            removed.append(path)
            freed += st.st_size
        except OSError:
            pass
    for path in leftovers:
        _unlink(path)
    if args.json:
        json.dump({"removed": removed, "freed": freed, "leftovers_removed": len(leftovers)}, out,
                  indent=1)
        out.write("\n")
    else:
        out.write(f"removed {len(removed)} entries ({_human(freed)})"
                  f"{f', {len(leftovers)} leftover files' if leftovers else ''} from {root}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
