"""The import-time half of `hpcjit cc` modules (aot.py builds them).

A module built by `hpcjit cc` is a C extension holding one object per
(function, signature, architecture), a table of runtime slots and a spec.
Its PyInit calls init() here, which picks the best architecture this CPU
can run, points the runtime slots at hpcjit._core's runtime, and binds each
function as a locked Dispatcher over the chosen objects.  Nothing here
imports the compiler or LLVM: hpcjit._core is the light extension."""
import ctypes
import os
import platform

# LLVM feature names -> the flag the Linux kernel shows in /proc/cpuinfo for
# it, where the names differ; features with no flag there (64bit, cx8,
# crc32, evex512, ...) are not checked
_X86_FLAG = {
    "sse3": "pni", "sse4.1": "sse4_1", "sse4.2": "sse4_2", "sahf": "lahf_lm",
    "bmi": "bmi1", "lzcnt": "abm", "pclmul": "pclmulqdq", "rdrnd": "rdrand",
    "prfchw": "3dnowprefetch", "sha": "sha_ni", "avx512vnni": "avx512_vnni",
    "avx512vbmi2": "avx512_vbmi2", "avx512bitalg": "avx512_bitalg",
    "avx512vpopcntdq": "avx512_vpopcntdq", "avx512bf16": "avx512_bf16",
    "avx512fp16": "avx512_fp16", "avxvnni": "avx_vnni", "amx-tile": "amx_tile",
    "amx-int8": "amx_int8", "amx-bf16": "amx_bf16",
    "avx512vp2intersect": "avx512_vp2intersect",
}
_X86_CHECKED = set(_X86_FLAG) | {
    "sse", "sse2", "ssse3", "popcnt", "cx16", "avx", "avx2", "bmi2", "f16c", "fma",
    "movbe", "xsave", "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "aes",
    "fsgsbase", "invpcid", "adx", "rdseed", "clflushopt", "xsavec", "xsaves", "clwb",
    "pku", "avx512vbmi", "avx512ifma", "gfni", "vaes", "vpclmulqdq", "rdpid", "wbnoinvd",
    "serialize", "clzero", "movdiri", "movdir64b", "mmx", "cmov", "fxsr"}
_ARM_FLAG = {"neon": "asimd", "crc": "crc32", "lse": "atomics", "rcpc": "lrcpc",
             "dotprod": "asimddp", "fullfp16": "fphp", "sve": "sve", "sve2": "sve2",
             "bf16": "bf16", "i8mm": "i8mm", "sha2": "sha2", "aes": "aes"}


def _cpu_flags():
    """The running CPU's feature flags as /proc/cpuinfo names them, or None."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, val = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    return set(val.split())
    except OSError:
        pass
    return None


def kernel_flag(feature, machine=None):
    """The /proc/cpuinfo flag for an LLVM feature name, or None if unchecked."""
    machine = machine or platform.machine()
    if machine in ("x86_64", "AMD64"):
        return _X86_FLAG.get(feature, feature) if feature in _X86_CHECKED else None
    if machine in ("aarch64", "arm64"):
        return _ARM_FLAG.get(feature)
    return None


def missing_features(features, flags=None, machine=None):
    """The LLVM features in `features` this CPU lacks (by /proc/cpuinfo)."""
    if flags is None:
        flags = _cpu_flags()
    if flags is None:
        return []
    out = []
    for feat in features:
        flag = kernel_flag(feat, machine)
        if flag is not None and flag not in flags:
            out.append(feat)
    return out


def choose_arch(archs, flags=None, forced=None):
    """Index of the architecture to run: HPCJIT_AOT_ARCH if set, else the
    runnable one that requires the most features (the first on a tie).
    `archs` is a list of (name, machine, [LLVM features])."""
    forced = forced if forced is not None else os.environ.get("HPCJIT_AOT_ARCH", "")
    names = [a[0] for a in archs]
    if forced:
        if forced not in names:
            raise ImportError(f"HPCJIT_AOT_ARCH={forced!r}: this module was built for "
                              f"{', '.join(names)}")
        return names.index(forced)
    machine = platform.machine()
    best, why = None, []
    for i, (name, arch_machine, feats) in enumerate(a[:3] for a in archs):
        if arch_machine != machine:
            why.append(f"{name}: built for {arch_machine}")
            continue
        lack = missing_features(feats, flags, machine)
        if lack:
            why.append(f"{name}: this CPU lacks {', '.join(lack[:6])}")
            continue
        if best is None or len(feats) > len(archs[best][2]):
            best = i
    if best is None:
        raise ImportError("no architecture of this hpcjit cc module runs on this CPU ("
                          + "; ".join(why) + "): rebuild it with hpcjit cc --archs")
    return best


def _stub(name, qualname, params, known):
    """The Python function a Dispatcher keeps: the module carries no source,
    so the stub has the parameters only (the dispatcher counts them and
    binds keywords by them); calling it just explains."""
    for p in params:
        if not p.isidentifier():
            raise ImportError(f"{name}: bad parameter name {p!r} in the module's spec")
    ns = {"_known": known}
    exec(f"def {name}({', '.join(params)}):\n"
         f"    raise TypeError({name!r} + ': compiled ahead of time for ' + _known + ' only')\n",
         ns)
    stub = ns[name]
    stub.__qualname__ = qualname
    return stub


def _no_compile(disp, argcodes):
    raise TypeError(f"{disp.__name__} was compiled ahead of time by hpcjit cc: "
                    "it has no compiler for new argument types")


def init(module, spec, slots_addr, entries):
    """Bind the module: `spec` is the dict aot.py wrote, `slots_addr` the
    address of the runtime slot table, `entries` the address of every
    entry, in spec["entries"] order."""
    import functools

    from . import _core, types as _types

    arch = choose_arch(spec["archs"])
    runtime = dict(_core._runtime_symbols())
    names = spec["runtime"]
    slots = (ctypes.c_void_p * max(1, len(names))).from_address(slots_addr)
    for i, name in enumerate(names):
        addr = runtime.get(name)
        if addr is None:
            raise ImportError(f"{module.__name__}: this hpcjit's runtime has no {name} "
                              f"(the module was built by hpcjit {spec['hpcjit']}): rebuild it")
        slots[i] = addr
    uses_mpi = False
    for fn in spec["functions"]:
        known = "; ".join(e["signature"] for e in spec["entries"] if e["func"] == fn["name"])
        stub = _stub(fn["name"], fn["qualname"], fn["params"], known)
        stub.__module__ = module.__name__
        stub.__doc__ = fn.get("doc")
        disp = _core.Dispatcher(stub, dict(fn["options"]), _no_compile)
        functools.update_wrapper(disp, stub)
        disp.__dict__["_hj_aot"] = True
        for i, e in enumerate(spec["entries"]):
            if e["func"] != fn["name"] or e["arch"] != arch:
                continue
            argcodes = tuple(e["argcodes"])
            info = {"argtypes": tuple(_types.from_typecode(c) for c in argcodes),
                    "argcodes": argcodes, "explicit_rettype": e["explicit_rettype"],
                    "entry_symbol": e["symbol"], "llvm_ir": None, "types_text": None,
                    "time_frontend": 0.0, "time_llvm": 0.0, "cache": "aot"}
            disp._add_overload("".join(argcodes), entries[i], e["rettype"], e["signature"], info)
            uses_mpi = uses_mpi or e["uses_mpi"]
        disp._lock()
        setattr(module, fn["name"], disp)
    if uses_mpi:
        from . import mpi
        mpi._init_for_compiled_code()
    module.__hpcjit_arch__ = spec["archs"][arch][0]
    module.__hpcjit_archs__ = tuple(a[0] for a in spec["archs"])
    return module
