"""hpcjit cc: ahead-of-time Python extension modules.

    hpcjit cc module.py [-o NAME] [--archs x86-64-v3,znver4,...] [--outdir DIR]
    hpcjit cc module.py --c-header [-o NAME] [--archs ARCH]
    hpcjit cc --warm SCRIPT.py | -m MODULE     (= hpcjit cache warm: fill the cache)

compiles the @njit functions of `module.py` that carry explicit signatures
(or those its `exports` list names: a name, or (name, signature) or
(name, [signatures])) into one extension module NAME, importable where the
hpcjit package is installed without its compiler: no LLVM, no compilation
at import.  With several --archs the module holds one object per
architecture and picks, at import, the one that needs the most features
this CPU has (HPCJIT_AOT_ARCH=name forces one); `host` (the default) is the
CPU running hpcjit cc, with all its features.  --c-header builds a shared
library and a C header instead (real-number signatures, @cfunc's
convention), which needs neither Python nor hpcjit at run time.

How the module is made (docs/AOT.md): each specialisation is compiled to
object bytes exactly as for the JIT (the compile step; only the load step
differs), its symbols other than the entry are made local (objcopy), the
entry is renamed per (function, signature, arch), and the system C compiler
links the objects with a generated C file that holds the spec, a slot per
runtime function the objects call (the objects' calls land on small jump
stubs through those slots, filled at import from hpcjit._core's runtime, so
that compiled code shares the interpreter's runtime: memory statistics,
exceptions, the thread pool) and PyInit, which hands over to hpcjit._aot."""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile

# The features each --archs name requires, in LLVM's names (a subset:
# the ones /proc/cpuinfo can confirm).  Checked at import by _aot.py.
_V2 = ["sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "cx16", "sahf"]
_V3 = _V2 + ["avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"]
_V4 = _V3 + ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]
_HSW = _V3 + ["aes", "pclmul", "rdrnd", "fsgsbase"]
_BDW = _HSW + ["adx", "rdseed", "prfchw"]
_SKL = _BDW + ["clflushopt", "xsavec", "xsaves"]
_SKX = _SKL + _V4[len(_V3):] + ["clwb"]
_ICX = _SKX + ["avx512vbmi", "avx512ifma", "avx512vbmi2", "avx512bitalg", "avx512vpopcntdq",
               "avx512vnni", "gfni", "vaes", "vpclmulqdq", "sha", "rdpid"]
_ZN1 = _V3 + ["aes", "pclmul", "rdrnd", "adx", "rdseed", "sha", "clzero", "xsavec",
              "clflushopt"]
_ZN3 = _ZN1 + ["clwb", "rdpid", "vaes", "vpclmulqdq"]
_ZN4 = _ZN3 + _V4[len(_V3):] + ["avx512vbmi", "avx512ifma", "avx512vbmi2", "avx512bitalg",
                                "avx512vpopcntdq", "avx512vnni", "avx512bf16", "gfni"]
_A64 = ["neon"]
_N1 = _A64 + ["crc", "lse", "rcpc", "dotprod", "fullfp16"]
ARCH_FEATURES = {
    "x86_64": {
        "x86-64": ["sse", "sse2"], "x86-64-v2": _V2, "x86-64-v3": _V3, "x86-64-v4": _V4,
        "haswell": _HSW, "broadwell": _BDW, "skylake": _SKL, "skylake-avx512": _SKX,
        "cascadelake": _SKX + ["avx512vnni"], "icelake-server": _ICX,
        "sapphirerapids": _ICX + ["avx512bf16", "avx512fp16", "avxvnni", "serialize"],
        "znver1": _ZN1, "znver2": _ZN1 + ["clwb", "rdpid"], "znver3": _ZN3, "znver4": _ZN4,
    },
    "aarch64": {
        "generic": _A64, "neoverse-n1": _N1, "neoverse-v1": _N1 + ["sve", "bf16", "i8mm"],
        "neoverse-n2": _N1 + ["sve", "sve2", "bf16", "i8mm"],
        "neoverse-v2": _N1 + ["sve", "sve2", "bf16", "i8mm"], "a64fx": _A64 + ["sve"],
    },
}


class CcError(Exception):
    """A user-facing failure of hpcjit cc (printed without a traceback)."""


def _log(args, msg):
    if not args.quiet:
        print(f"hpcjit cc: {msg}", file=sys.stderr, flush=True)


def _load(path):
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise CcError(f"no such file: {path}")
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _exports(mod):
    """[(dispatcher, [(argcodes, explicit rettype)])] of what the module exports."""
    from . import _core
    from .dispatcher import _signature_typecodes
    listed = getattr(mod, "exports", None)
    out = []
    if listed is None:
        for name, obj in vars(mod).items():
            if (isinstance(obj, _core.Dispatcher) and obj._locked
                    and getattr(obj.py_func, "__module__", None) == mod.__name__):
                out.append((obj, [(i["argcodes"], i["explicit_rettype"]) for i in obj._infos]))
        if not out:
            raise CcError(f"{mod.__file__}: no @njit function with an explicit signature "
                          "(give @njit('float64(float64[:])') or an `exports` list)")
        return out
    for item in listed:
        name, sigs = (item, None) if isinstance(item, str) else (item[0], item[1])
        obj = getattr(mod, name, None)
        if not isinstance(obj, _core.Dispatcher):
            raise CcError(f"exports names {name!r}, which is not an @njit function of "
                          f"{mod.__name__}")
        if sigs is None:
            pairs = [(i["argcodes"], i["explicit_rettype"]) for i in obj._infos]
            if not pairs:
                raise CcError(f"exports names {name!r} without a signature, and it has none: "
                              "write ('name', 'float64(float64)')")
        else:
            if isinstance(sigs, str) or not isinstance(sigs, (list, tuple)):
                sigs = [sigs]
            pairs = []
            for sig in sigs:
                ret, args = _signature_typecodes(sig)
                pairs.append((tuple(args), ret))
        out.append((obj, pairs))
    return out


def _arch_list(text, target):
    machine = target["triple"].split("-")[0]
    known = ARCH_FEATURES.get(machine, {})
    archs = []
    for name in (text or "host").split(","):
        name = name.strip()
        if not name or name in (a[0] for a in archs):
            continue
        if name != "host" and name not in known:
            raise CcError(f"unknown architecture {name!r} for {machine}: hpcjit cc knows "
                          f"host, {', '.join(known)}")
        archs.append((name, machine))
    return archs


def _compile_arch(name, exports, args):
    """Object bytes of every export for one architecture."""
    from . import _compiler, compiler
    saved = {k: os.environ.get(k) for k in ("HPCJIT_CPU_NAME", "HPCJIT_CPU_FEATURES")}
    try:
        if name == "host":
            os.environ.pop("HPCJIT_CPU_NAME", None)
            os.environ.pop("HPCJIT_CPU_FEATURES", None)
        else:
            os.environ["HPCJIT_CPU_NAME"] = name
            os.environ["HPCJIT_CPU_FEATURES"] = "default"
        t = _compiler.target_info()
        machine = t["triple"].split("-")[0]
        if name == "host":
            feats = [f[1:] for f in t["features"].split(",") if f.startswith("+")]
        else:
            feats = list(ARCH_FEATURES[machine][name])
        out = []
        for disp, pairs in exports:
            funcs, entry = compiler.gather(disp)
            _refuse_objmode(disp, funcs)
            for argcodes, ret in pairs:
                res = compiler.compile_funcs(disp, list(argcodes), ret, False, False)
                _log(args, f"{name}: {disp.py_func.__qualname__}{res['signature']}")
                out.append((disp, argcodes, ret, res))
        return (name if name != "host" else "host", machine, feats, t["cpu"]), out
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _refuse_objmode(disp, funcs):
    """objmode blocks call Python functions of this process (by handle):
    not in an object compiled ahead of time."""
    if any(len(f) > 8 and f[8] is not None and f[8][0] == "pycall" for f in funcs):
        from .errors import UnsupportedError
        raise UnsupportedError(f"{disp.py_func.__qualname__}: a function with an objmode "
                               f"block cannot be compiled ahead of time")


def _tool(names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    raise CcError(f"none of {', '.join(names)} found on PATH")


def _run(cmd, args):
    if args.verbose:
        print("+ " + " ".join(cmd), file=sys.stderr)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CcError(f"{os.path.basename(cmd[0])} failed:\n{r.stderr.strip()}")
    return r.stdout


def _undefined(objcopy_dir, paths, args):
    nm = _tool(["nm", "llvm-nm-19"])
    out = set()
    for p in paths:
        for line in _run([nm, "-u", p], args).splitlines():
            parts = line.split()
            if parts:
                out.add(parts[-1])
    return sorted(out)


def _libmvec(paths, args):
    """["-lmvec"] when an object calls glibc's vector math (a loop over
    sin, exp, pow...: compiler/backend/vecmath.c), else []."""
    if any(sym.startswith("_ZGV") for sym in _undefined(None, paths, args)):
        return ["-lmvec"]
    return []


# The runtime's data symbols compiled code reads (not functions: no jump
# stub), with the value an ahead-of-time module gives them.  None now:
# recursive functions keep their stack limit in their own module.
_RUNTIME_DATA = {}


def _runtime_data_c():
    return "\n".join(f'__attribute__((visibility("hidden"))) uintptr_t {n} = {v};'
                     for n, v in _RUNTIME_DATA.items())


def _stub_asm(names, machine):
    """Jump stubs: each runtime function the objects call goes through the
    slot _aot.init() fills with hpcjit._core's address for it."""
    lines = ["  .text"]
    for i, n in enumerate(names):
        lines += [f"  .globl {n}", f"  .hidden {n}", f"  .type {n}, @function", "  .p2align 4",
                  f"{n}:"]
        off = 8 * i
        if machine == "x86_64":
            lines.append(f"  jmp *hj_aot_slots+{off}(%rip)")
        elif machine == "aarch64":
            lines += [f"  adrp x16, hj_aot_slots+{off}",
                      f"  ldr x16, [x16, #:lo12:hj_aot_slots+{off}]", "  br x16"]
        else:
            raise CcError(f"hpcjit cc has no jump stubs for {machine}")
        lines.append(f"  .size {n}, .-{n}")
    return "\n".join(lines) + "\n"


def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _c_source(modname, spec, entry_syms, runtime, machine):
    spec_text = json.dumps(spec, separators=(",", ":"))
    chunks = [spec_text[i:i + 100] for i in range(0, len(spec_text), 100)] or [""]
    decl = "\n".join(f"extern char {s}[];" for s in entry_syms)
    table = ",\n    ".join(f"(void *){s}" for s in entry_syms) or "0"
    asm = _stub_asm(runtime, machine)
    return f"""/* Generated by hpcjit cc for module {modname}: do not edit. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

__attribute__((visibility("hidden"))) void *hj_aot_slots[{max(1, len(runtime))}];
{_runtime_data_c()}
__asm__({_c_string(asm)});

{decl}
static void *const entries[] = {{
    {table}
}};
static const char spec_json[] =
    {chr(10).join("    " + _c_string(c) for c in chunks)};

static struct PyModuleDef moddef = {{PyModuleDef_HEAD_INIT, "{modname}",
    "hpcjit cc module (ahead-of-time compiled)", -1, NULL}};

PyMODINIT_FUNC PyInit_{modname}(void)
{{
    PyObject *m = NULL, *aot = NULL, *json = NULL, *spec = NULL, *addrs = NULL, *r = NULL;
    size_t n = {len(entry_syms)};
    m = PyModule_Create(&moddef);
    if (!m)
        goto error;
    aot = PyImport_ImportModule("hpcjit._aot");
    json = PyImport_ImportModule("json");
    if (!aot || !json)
        goto error;
    spec = PyObject_CallMethod(json, "loads", "s", spec_json);
    addrs = PyTuple_New((Py_ssize_t)n);
    if (!spec || !addrs)
        goto error;
    for (size_t i = 0; i < n; i++) {{
        PyObject *a = PyLong_FromVoidPtr(entries[i]);
        if (!a)
            goto error;
        PyTuple_SET_ITEM(addrs, (Py_ssize_t)i, a);
    }}
    r = PyObject_CallMethod(aot, "init", "OOKO", m, spec,
                            (unsigned long long)(uintptr_t)hj_aot_slots, addrs);
    if (!r)
        goto error;
    Py_DECREF(r);
    Py_DECREF(aot);
    Py_DECREF(json);
    Py_DECREF(spec);
    Py_DECREF(addrs);
    return m;
error:
    Py_XDECREF(aot);
    Py_XDECREF(json);
    Py_XDECREF(spec);
    Py_XDECREF(addrs);
    Py_XDECREF(m);
    return NULL;
}}
"""


def _py_params(disp):
    import inspect
    return list(inspect.signature(disp.py_func).parameters)


def build(args):
    from . import _compiler, _core, __version__
    mod = _load(args.module)
    modname = args.output or mod.__name__
    if not modname.isidentifier():
        raise CcError(f"-o {modname!r}: a module name must be a Python identifier")
    exports = _exports(mod)
    archs = _arch_list(args.archs, _compiler.target_info())
    outdir = os.path.abspath(args.outdir or os.getcwd())
    os.makedirs(outdir, exist_ok=True)
    spec = {"hpcjit": __version__, "module": modname, "archs": [], "functions": [],
            "entries": [], "runtime": []}
    for disp, _ in exports:
        spec["functions"].append({
            "name": disp.py_func.__name__, "qualname": disp.py_func.__qualname__,
            "params": _py_params(disp), "doc": disp.py_func.__doc__,
            "options": {k: v for k, v in disp.targetoptions.items() if k != "cache"}})
    tmp = tempfile.mkdtemp(prefix="hpcjit-cc-")
    try:
        objcopy = _tool(["objcopy", "llvm-objcopy-19"])
        objs, entry_syms = [], []
        for ai, (arch, _machine) in enumerate(archs):
            (aname, machine, feats, cpu), compiled = _compile_arch(arch, exports, args)
            spec["archs"].append([aname, machine, feats, cpu])
            for disp, argcodes, ret, res in compiled:
                k = len(objs)
                raw = os.path.join(tmp, f"e{k}.raw.o")
                obj = os.path.join(tmp, f"e{k}.o")
                sym = f"hj_aot_{modname}_{k}"
                with open(raw, "wb") as f:
                    f.write(res["object"])
                _run([objcopy, f"--keep-global-symbol={sym}",
                      f"--redefine-sym={res['entry_symbol']}={sym}", raw, obj], args)
                objs.append(obj)
                entry_syms.append(sym)
                spec["entries"].append({
                    "func": disp.py_func.__name__, "arch": ai, "argcodes": list(argcodes),
                    "explicit_rettype": ret, "rettype": res["rettype"],
                    "signature": res["signature"], "symbol": res["entry_symbol"],
                    "uses_mpi": bool(res.get("uses_mpi"))})
        known_rt = {n for n, _ in _core._runtime_symbols()} - set(_RUNTIME_DATA)
        runtime = [s for s in _undefined(tmp, objs, args) if s in known_rt]
        spec["runtime"] = runtime
        csrc = os.path.join(tmp, f"{modname}_aot.c")
        with open(csrc, "w") as f:
            f.write(_c_source(modname, spec, entry_syms, runtime, archs[0][1]
                              if archs else platform.machine()))
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        target = os.path.join(outdir, modname + suffix)
        cc = os.environ.get("CC") or _tool(["cc", "gcc", "clang"])
        inc = sysconfig.get_paths()["include"]
        _run([cc, "-shared", "-fPIC", "-O2", f"-I{inc}", "-o", target + ".tmp", csrc, *objs,
              "-Wl,-z,noexecstack", *_libmvec(objs, args), "-lm"], args)
        os.replace(target + ".tmp", target)
        if args.keep_temps:
            _log(args, f"temporary files kept in {tmp}")
        _log(args, f"wrote {target} ({len(entry_syms)} entries, archs "
                   f"{', '.join(a[0] for a in spec['archs'])})")
        return target, spec
    finally:
        if not args.keep_temps:
            shutil.rmtree(tmp, ignore_errors=True)


_C_TYPES = {"?": "bool", "b": "int8_t", "h": "int16_t", "i": "int32_t", "l": "int64_t",
            "B": "uint8_t", "H": "uint16_t", "I": "uint32_t", "L": "uint64_t", "f": "float",
            "d": "double", "n": "void"}
_TYPE_NAMES = {"?": "bool", "b": "int8", "h": "int16", "i": "int32", "l": "int64", "B": "uint8",
               "H": "uint16", "I": "uint32", "L": "uint64", "f": "float32", "d": "float64"}


def _runtime_archive():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "lib", "libhpcjit_runtime.a")
    if not os.path.isfile(path):
        raise CcError(f"the runtime archive {path} is missing (reinstall hpcjit)")
    return path


def build_clib(args):
    """--c-header: a shared library lib<NAME>.so and NAME.h for C, C++ and
    Fortran (bind(C)) callers.  Entries use the C calling convention of
    @cfunc: real numbers in and out; an exception inside is printed to
    stderr and the function returns 0.  The runtime is linked in
    statically: the library needs neither Python nor hpcjit."""
    from . import _compiler
    mod = _load(args.module)
    name = args.output or mod.__name__
    if not name.isidentifier():
        raise CcError(f"-o {name!r}: a library name must be a C identifier")
    exports = _exports(mod)
    archs = _arch_list(args.archs, _compiler.target_info())
    if len(archs) != 1:
        raise CcError("--c-header builds one architecture: give one --archs name")
    for disp, pairs in exports:
        for argcodes, ret in pairs:
            bad = [c for c in list(argcodes) + [ret or "?"] if c not in _C_TYPES]
            if bad or ret is None:
                raise CcError(f"--c-header: {disp.py_func.__name__}({', '.join(argcodes)}) "
                              "needs real-number arguments and an explicit real-number "
                              "return type (as @cfunc); arrays are not C arguments yet")
    outdir = os.path.abspath(args.outdir or os.getcwd())
    os.makedirs(outdir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="hpcjit-cc-")
    try:
        from . import compiler
        objcopy = _tool(["objcopy", "llvm-objcopy-19"])
        arch = archs[0][0]
        saved = {k: os.environ.get(k) for k in ("HPCJIT_CPU_NAME", "HPCJIT_CPU_FEATURES")}
        if arch != "host":
            os.environ["HPCJIT_CPU_NAME"] = arch
            os.environ["HPCJIT_CPU_FEATURES"] = "default"
        objs, protos, report = [], [], []
        try:
            for disp, pairs in exports:
                funcs, entry = compiler.gather(disp)
                _refuse_objmode(disp, funcs)
                fname = disp.py_func.__name__
                for argcodes, ret in pairs:
                    sym = f"{name}_{fname}"
                    if len(pairs) > 1:
                        sym += "_" + "_".join(_TYPE_NAMES[c] for c in argcodes)
                    res = compiler.compile_funcs(disp, list(argcodes), ret, False, False,
                                            False, True)
                    raw = os.path.join(tmp, f"c{len(objs)}.raw.o")
                    obj = os.path.join(tmp, f"c{len(objs)}.o")
                    with open(raw, "wb") as f:
                        f.write(res["object"])
                    _run([objcopy, f"--keep-global-symbol={sym}",
                          f"--redefine-sym={res['entry_symbol']}={sym}", raw, obj], args)
                    objs.append(obj)
                    params = _py_params(disp)
                    cargs = ", ".join(f"{_C_TYPES[c]} {p}" for c, p in zip(argcodes, params))
                    protos.append(f"{_C_TYPES[ret]} {sym}({cargs or 'void'});")
                    report.append({"name": fname, "symbol": sym, "signature": res["signature"],
                                   "arch": arch})
                    _log(args, f"{arch}: {sym}{res['signature']}")
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        guard = f"HPCJIT_CC_{name.upper()}_H"
        header = os.path.join(outdir, f"{name}.h")
        with open(header, "w") as f:
            f.write(f"/* {name}.h: generated by hpcjit cc --c-header from "
                    f"{os.path.basename(args.module)}; link with -l{name}. */\n"
                    f"#ifndef {guard}\n#define {guard}\n\n#include <stdbool.h>\n"
                    "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
                    + "\n".join(protos) + "\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n")
        lib = os.path.join(outdir, f"lib{name}.so")
        cc = os.environ.get("CC") or _tool(["cc", "gcc", "clang"])
        _run([cc, "-shared", "-fPIC", "-o", lib + ".tmp", *objs, _runtime_archive(),
              "-Wl,-z,noexecstack", *_libmvec(objs, args), "-lpthread", "-lm", "-ldl"], args)
        os.replace(lib + ".tmp", lib)
        _log(args, f"wrote {lib} and {header} ({len(objs)} functions)")
        return {"path": lib, "header": header, "module": name, "archs": [arch],
                "functions": report}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="hpcjit cc",
        description="Compile a module's @njit functions with explicit signatures (or its "
                    "`exports` list) ahead of time into a Python extension module that "
                    "imports without hpcjit's compiler or LLVM.")
    p.add_argument("module", help="the Python source file (module.py); `hpcjit cc --warm "
                                  "SCRIPT` fills the compile cache instead (hpcjit cache warm)")
    p.add_argument("-o", "--output", metavar="NAME",
                   help="the extension module's name (default: the source file's)")
    p.add_argument("--outdir", metavar="DIR", help="where to write it (default: .)")
    p.add_argument("--archs", metavar="A,B,...",
                   help="architectures to build (LLVM CPU names: x86-64-v3, znver4, "
                        "sapphirerapids, neoverse-v2, ...; default: host); the best one for "
                        "the running CPU is picked at import")
    p.add_argument("--c-header", action="store_true",
                   help="build a shared library libNAME.so and NAME.h for C/C++/Fortran "
                        "callers instead (real-number signatures, as @cfunc)")
    p.add_argument("--list-archs", action="store_true",
                   help="print the architecture names hpcjit cc knows and exit")
    p.add_argument("--json", action="store_true", help="print what was built as JSON")
    p.add_argument("--keep-temps", action="store_true", help="keep the objects and C file")
    p.add_argument("-v", "--verbose", action="store_true", help="print the commands run")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress messages")
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--warm"]:  # hpcjit cc --warm SCRIPT: fill the cache before a job
        from . import cache
        return cache.main(["warm"] + list(argv[1:]))
    if "--list-archs" in argv:
        for machine, names in ARCH_FEATURES.items():
            print(f"{machine}: host, {', '.join(names)}")
        return 0
    args = p.parse_args(argv)
    try:
        if args.c_header:
            report = build_clib(args)
            if args.json:
                print(json.dumps(report, indent=2))
            return 0
        target, spec = build(args)
    except CcError as exc:
        print(f"hpcjit cc: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"path": target, "module": spec["module"],
                          "archs": [a[0] for a in spec["archs"]],
                          "functions": [{"name": e["func"], "signature": e["signature"],
                                         "arch": spec["archs"][e["arch"]][0]}
                                        for e in spec["entries"]],
                          "runtime_symbols": spec["runtime"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
