"""Compiled loops answer signals (runtime/signals.c): Ctrl-C raises
KeyboardInterrupt, and a handler a batch script installs for Slurm's
SIGTERM/SIGUSR1 (`srun --signal`, time limits, preemption) runs, while a
long compiled loop is running, not after it.

The runtime puts a small C handler in front of CPython's for every signal
that has a Python handler: at import for those installed already, and from
`signal.signal` (wrapped here) for later ones.  HPCJIT_SIGNALS=0 turns it
off for the process; `@njit(poll_signals=False)` compiles a function whose
loops do not poll."""
import functools
import os
import signal
import threading

from . import _core


def _hook(signum):
    try:
        return _core._signal_hook(int(signum))
    except (ValueError, OverflowError, TypeError):
        return False


def install():
    if os.environ.get("HPCJIT_SIGNALS", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    if threading.current_thread() is not threading.main_thread():
        return  # signal.signal works in the main thread only; so do the hooks
    if getattr(signal.signal, "_hpcjit_hooked", False):
        return
    for s in signal.valid_signals():
        try:
            h = signal.getsignal(s)
        except (ValueError, OSError):
            continue
        if callable(h):
            _hook(s)
    orig = signal.signal

    @functools.wraps(orig)
    def hooked_signal(signalnum, handler):
        old = orig(signalnum, handler)
        if callable(handler) and threading.current_thread() is threading.main_thread():
            _hook(signalnum)
        return old

    hooked_signal._hpcjit_hooked = True
    signal.signal = hooked_signal
