#!/bin/sh
# Install hpcjit into a temporary prefix, load its modulefile non-interactively
# and check that python3 -c "import hpcjit", `hpcjit --help` and
# find_package(hpcjit) work, and that unloading restores the environment.
#   modules.sh lmod-lua|lmod-tcl|envmodules BUILD_DIR VERSION PYTHON
# Exits 77 when the module system is not installed.
set -eu
flavour=$1 build=$2 ver=$3 py=$4
here=$(cd "$(dirname "$0")" && pwd)

case $flavour in
lmod-*)
    LMOD_CMD=${LMOD_CMD:-/usr/share/lmod/lmod/libexec/lmod}
    [ -x "$LMOD_CMD" ] || { echo "skip: Lmod not installed"; exit 77; }
    modcmd() { "$LMOD_CMD" bash "$@"; } ;;
envmodules)
    tcl=${MODULECMD_TCL:-}
    for c in /usr/lib/x86_64-linux-gnu/modulecmd.tcl /usr/share/modules/libexec/modulecmd.tcl \
             "${HPCJIT_ENVMODULES_ROOT:-/nonexistent}/usr/lib/x86_64-linux-gnu/modulecmd.tcl" \
             "${HPCJIT_ENVMODULES_ROOT:-/nonexistent}/usr/lib/modulecmd.tcl"; do
        [ -z "$tcl" ] && [ -f "$c" ] && tcl=$c
    done
    [ -n "$tcl" ] || { echo "skip: Environment Modules (modulecmd.tcl) not installed"; exit 77; }
    command -v tclsh >/dev/null || { echo "skip: no tclsh"; exit 77; }
    modcmd() { tclsh "$tcl" bash "$@"; } ;;
*) echo "unknown flavour $flavour"; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
mods=$prefix/share/modulefiles
test -f "$mods/hpcjit/$ver" && test -f "$mods/hpcjit/$ver.lua"
head -1 "$mods/hpcjit/$ver" | grep -q '^#%Module'
if [ "$flavour" != lmod-lua ]; then
    # only the Tcl file, so that Lmod cannot prefer the .lua beside it
    mkdir -p "$tmp/tclonly/hpcjit"
    cp "$mods/hpcjit/$ver" "$tmp/tclonly/hpcjit/$ver"
    mods=$tmp/tclonly
fi

export MODULEPATH=$mods
unset HPCJIT_ROOT || true
export PYTHONPATH=
cd "$tmp"   # away from any source tree on sys.path
eval "$(modcmd load "hpcjit/$ver")"
echo "HPCJIT_ROOT=$HPCJIT_ROOT"
[ "$HPCJIT_ROOT" = "$prefix" ]
[ "$(command -v hpcjit)" = "$prefix/bin/hpcjit" ]
case ":$LD_LIBRARY_PATH:" in *":$prefix/lib"*) ;; *) echo "LD_LIBRARY_PATH lacks $prefix/lib"; exit 1 ;; esac
case ":$CMAKE_PREFIX_PATH:" in *":$prefix:"*) ;; *) echo "CMAKE_PREFIX_PATH lacks $prefix"; exit 1 ;; esac
case ":${MANPATH:-}:" in *":$prefix/share/man"*) ;; *) echo "MANPATH lacks $prefix/share/man"; exit 1 ;; esac
hpcjit --help | grep -q "hpcjit run" || hpcjit --help | grep -q "run "
hpcjit run --help > /dev/null
cat > "$tmp/use.py" <<'PY'
import os
import hpcjit

@hpcjit.njit
def f(a, b):
    return a * b + 1

assert hpcjit.__file__.startswith(os.environ["HPCJIT_ROOT"]), hpcjit.__file__
assert f(6, 7) == f.py_func(6, 7) == 43
print("import hpcjit from", os.path.dirname(hpcjit.__file__))
PY
"$py" "$tmp/use.py"
# whatis / help text
modcmd whatis "hpcjit/$ver" 2>&1 | grep -q "Numba-compatible"
# a C project finds the package through CMAKE_PREFIX_PATH
cmake -S "$here/consumer" -B "$tmp/consumer" > "$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; exit 1; }
cmake --build "$tmp/consumer" >> "$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; exit 1; }
"$tmp/consumer/consumer"
eval "$(modcmd unload hpcjit)"
[ -z "${HPCJIT_ROOT:-}" ]
case ":$PATH:" in *"$prefix"*) echo "PATH still names $prefix: $PATH"; exit 1 ;; esac
case ":${PYTHONPATH:-}:" in *"$prefix"*) echo "PYTHONPATH still names $prefix"; exit 1 ;; esac
echo "ok: $flavour"
