/* signals.h - Ctrl-C and Slurm's signals while compiled code runs.
 *
 * CPython runs a signal's Python handler between bytecodes, so a long
 * compiled loop used to delay KeyboardInterrupt (and the handler a batch
 * script installs for Slurm's SIGTERM/SIGUSR1) until it returned.  Now:
 *   - rt_signal_hook(sig) puts a small handler in front of the one CPython
 *     installed for `sig` (only where a Python handler is installed: a
 *     default action still kills the process): it sets a flag and calls
 *     CPython's handler, which trips CPython's own flag as before;
 *   - compiled code reads the flag (rt_signal_flag_addr(), a volatile load)
 *     at the back edge of each loop that contains another loop, and of
 *     while loops, and calls rt_signal_poll() when it is set;
 *   - on the thread that handles signals (the one that hooked them: the
 *     main thread), rt_signal_poll runs the Python handlers through the
 *     checker _core installed (GIL taken, PyErr_CheckSignals).  A handler
 *     that raises makes the loop unwind with that exception (raised as
 *     RT_SIGNAL_EXC, which the dispatcher replaces by the handler's
 *     exception); one that returns lets the loop go on;
 *   - on other threads (prange workers) the poll only stops the loop once
 *     the main thread unwinds.
 * Innermost loops are not polled: the check would stop their
 * vectorisation. */
#ifndef HPCJIT_SIGNALS_H
#define HPCJIT_SIGNALS_H

#define RT_SIGNAL_EXC "hpcjit.signal"

/* The flag compiled code reads: 0 nothing pending, 1 a signal arrived,
 * 2 the signal thread is unwinding from a handler's exception. */
volatile int *rt_signal_flag_addr(void);
/* Called by compiled code when the flag is set: 0 go on, -1 unwind (an
 * exception is pending). */
int rt_signal_poll(void);
/* Run the Python handlers: 0 none raised, -1 one raised (kept by the
 * checker for the dispatcher).  NULL: none. */
void rt_signal_set_checker(int (*check)(void));
/* Put the flag-setting handler in front of sig's handler: 0 done (or
 * already), 1 not done (no handler function to chain to), -1 error. */
int rt_signal_hook(int sig);
/* The dispatcher, after a call: nothing is pending any more. */
void rt_signal_clear(void);

#endif
