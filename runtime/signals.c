/* signals.c - see hpcjit/signals.h. */
#define _GNU_SOURCE
#include "hpcjit/signals.h"

#include "hpcjit/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static volatile int flag;
static struct sigaction next_action[NSIG];
static pthread_t signal_thread;
static atomic_int have_signal_thread;
static int (*checker)(void);

volatile int *rt_signal_flag_addr(void) { return &flag; }

static void on_signal(int sig, siginfo_t *info, void *uc) {
    int saved = errno;
    if (flag == 0)
        flag = 1;
    if (sig > 0 && sig < NSIG) {
        const struct sigaction *n = &next_action[sig];
        if (n->sa_flags & SA_SIGINFO) {
            if (n->sa_sigaction)
                n->sa_sigaction(sig, info, uc);
        } else if (n->sa_handler != SIG_DFL && n->sa_handler != SIG_IGN) {
            n->sa_handler(sig);
        }
    }
    errno = saved;
}

int rt_signal_hook(int sig) {
    struct sigaction cur, mine;
    if (sig <= 0 || sig >= NSIG || sigaction(sig, NULL, &cur) != 0)
        return -1;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
        return 0;
    if (!(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN))
        return 1;
    /* the handler reads next_action[sig]: keep the old one's copy before
     * it can run */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    next_action[sig] = cur;
    mine = cur;
    mine.sa_flags |= SA_SIGINFO;
    mine.sa_sigaction = on_signal;
    int rc = sigaction(sig, &mine, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    signal_thread = pthread_self();
    atomic_store(&have_signal_thread, 1);
    return 0;
}

void rt_signal_set_checker(int (*check)(void)) { checker = check; }

void rt_signal_clear(void) { flag = 0; }

int rt_signal_poll(void) {
    int f = flag;
    if (f == 0)
        return 0;
    if (!atomic_load(&have_signal_thread) || !pthread_equal(pthread_self(), signal_thread)) {
        if (f == 2) { /* the signal thread unwinds: stop this share too */
            rt_raise("KeyboardInterrupt", "parallel loop stopped by a signal");
            return -1;
        }
        return 0;
    }
    flag = 0; /* a signal during the handlers sets it again */
    if (!checker || checker() == 0)
        return 0;
    flag = 2;
    rt_raise(RT_SIGNAL_EXC, "a signal handler raised");
    return -1;
}
