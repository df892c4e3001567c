#!/bin/sh
# A real single-node Slurm (Debian's slurmctld/slurmd, started here with the
# minimal configuration of HPC-CONVENTIONS.md) runs an sbatch script that
# loads the hpcjit module with Lmod and starts examples/mpi_reduce.py with
# `hpcjit run -n 2`.  Checks the job's output and exit status.  Needs root;
# exits 77 without Slurm, Lmod, MPI or root.
#   slurm_job.sh BUILD_DIR SOURCE_DIR VERSION PYTHON
set -u
build=$1 src=$2 ver=$3 py=$4
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
for p in slurmctld slurmd sbatch sinfo mpirun; do
    command -v $p >/dev/null || { echo "skip: no $p"; exit 77; }
done
LMOD_CMD=${LMOD_CMD:-/usr/share/lmod/lmod/libexec/lmod}
[ -x "$LMOD_CMD" ] || { echo "skip: no Lmod"; exit 77; }
"$py" -c "import sys; sys.path.insert(0, '$build/python'); import hpcjit._mpi" 2>/dev/null ||
    { echo "skip: hpcjit built without MPI"; exit 77; }

tmp=$(mktemp -d)
ctld= slurmd_pid=
cleanup() {
    [ -n "$slurmd_pid" ] && kill "$slurmd_pid" 2>/dev/null
    [ -n "$ctld" ] && kill "$ctld" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*.log "$tmp"/*.out; do [ -f "$f" ] && { echo "== $f"; tail -30 "$f"; }; done; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || fail "install"
host=$(hostname -s)
node=$(slurmd -C | head -1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
port=$((17000 + $$ % 1000))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/nodetmp"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=hpcjit-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/pgid
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
TmpFS=$tmp/nodetmp
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ReturnToService=2
$node State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$tmp/ctld.out" 2>&1 &
ctld=$!
slurmd -D -f "$SLURM_CONF" > "$tmp/slurmd.out" 2>&1 &
slurmd_pid=$!
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
    i=$((i + 1)); [ $i -gt 60 ] && fail "the node did not become idle"
    sleep 1
done

cat > "$tmp/job.sh" <<JOB
#!/bin/sh
#SBATCH -n 2 -c 1 -t 5
export MODULEPATH=$tmp/prefix/share/modulefiles
export PYTHONPATH=
eval "\$($LMOD_CMD sh load hpcjit/$ver)"
echo "HPCJIT_ROOT=\$HPCJIT_ROOT"
export HPCJIT_PYTHON=$py
hpcjit run --dry-run $src/examples/mpi_reduce.py 2000000
hpcjit run -n 2 sh -c 'echo "task \$SLURM_PROCID cache \$HPCJIT_CACHE_DIR threads \$HPCJIT_NUM_THREADS cpus \$(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
# SIGUSR1 to hpcjit run reaches both tasks through srun
mkdir -p $tmp/sig
hpcjit run -n 2 $src/tests/mpi/sigwait.py $tmp/sig &
pid=\$!
i=0
while [ ! -e $tmp/sig/ready0 ] || [ ! -e $tmp/sig/ready1 ]; do
    i=\$((i + 1)); [ \$i -gt 300 ] && break
    sleep 0.2
done
kill -USR1 \$pid
wait \$pid
echo "signal run: status \$? got \$(cat $tmp/sig/got0 2>/dev/null) \$(cat $tmp/sig/got1 2>/dev/null)"
exec hpcjit run -n 2 \$MODE $src/examples/mpi_reduce.py 2000000
JOB
cd "$tmp"
MODE= sbatch --wait -o "$tmp/job.out" --export=ALL,MODE= "$tmp/job.sh" > "$tmp/sbatch.log" 2>&1
rc=$?
cat "$tmp/job.out"
[ $rc = 0 ] || fail "sbatch --wait: status $rc"
grep -q "HPCJIT_ROOT=$tmp/prefix" "$tmp/job.out" || fail "module not loaded in the job"
grep -q "^srun -n 2 -c 1 --cpu-bind=cores --kill-on-bad-exit=1" "$tmp/job.out" || fail "not srun"
grep -q "ranks 2  sum 1.64493" "$tmp/job.out" || fail "wrong output"
grep -q "^signal run: status 3 got 10 10$" "$tmp/job.out" || fail "SIGUSR1 did not reach both tasks through srun"
# every task got the node-local cache directory and its thread count
[ "$(grep -c '^task [01] cache /.*/hpcjit-[a-z0-9]*-[0-9][0-9]* threads 1 cpus ' "$tmp/job.out")" = 2 ] ||
    fail "the tasks did not get HPCJIT_CACHE_DIR=\${TMPDIR:-/tmp}/hpcjit-\$USER-\$SLURM_JOB_ID"
# srun --cpu-bind=cores: the two tasks on different cores
cpus0=$(sed -n 's/^task 0 .* cpus //p' "$tmp/job.out")
cpus1=$(sed -n 's/^task 1 .* cpus //p' "$tmp/job.out")
[ -n "$cpus0" ] && [ "$cpus0" != "$cpus1" ] || fail "tasks share cores: '$cpus0' and '$cpus1'"

# A second job where rank 1 raises (tests/mpi/raises.py: rank 0 waits for it
# in a collective): hpcjit.mpi calls MPI_Abort, srun --kill-on-bad-exit ends
# the step; the job must end with a non-zero status within 30 s and show the
# traceback with the rank number.
cat > "$tmp/fail.sh" <<JOB
#!/bin/sh
#SBATCH -n 2 -c 1 -t 5
export MODULEPATH=$tmp/prefix/share/modulefiles
export PYTHONPATH=
eval "\$($LMOD_CMD sh load hpcjit/$ver)"
export HPCJIT_PYTHON=$py
t0=\$(date +%s)
hpcjit run -n 2 $src/tests/mpi/raises.py
rc=\$?
echo "hpcjit run: status \$rc after \$((\$(date +%s) - t0)) s"
exit \$rc
JOB
sbatch --wait -o "$tmp/fail.out" "$tmp/fail.sh" > "$tmp/sbatch-fail.log" 2>&1
rc=$?
cat "$tmp/fail.out"
[ $rc != 0 ] || fail "the job with a failing rank ended with status 0"
line=$(grep "^hpcjit run: status" "$tmp/fail.out") || fail "the failing job did not finish its script"
set -- $line
[ "$4" != 0 ] || fail "hpcjit run returned 0 although rank 1 raised"
[ "$6" -le 30 ] || fail "the failing job took $6 s to end (more than 30 s)"
grep -q "^\[rank 1\] Traceback" "$tmp/fail.out" || fail "no [rank 1] traceback in the output"
grep -q "boom from rank 1" "$tmp/fail.out" || fail "no exception message in the output"

echo "ok: sbatch job through Lmod and hpcjit run (status 0), SIGUSR1 forwarded to the tasks"
echo "ok: a job whose rank raises ends with status $rc (hpcjit run: $4) within $6 s"
