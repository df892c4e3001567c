"""A rank that waits for a signal (started by slurm_job.sh through
`hpcjit run`): it writes DIR/readyR, and on SIGUSR1 or SIGUSR2 writes the
signal number to DIR/gotR and exits with status 3.
    sigwait.py DIR"""
import os
import signal
import sys
import time

d = sys.argv[1]
r = os.environ.get("SLURM_PROCID", os.environ.get("OMPI_COMM_WORLD_RANK", "0"))


def handler(sig, frame):
    with open(os.path.join(d, "got" + r), "w") as f:
        f.write(str(sig))
    sys.exit(3)


signal.signal(signal.SIGUSR1, handler)
signal.signal(signal.SIGUSR2, handler)
open(os.path.join(d, "ready" + r), "w").close()
time.sleep(60)
sys.exit(4)
