/* hpcjit run - start a program as a job (srun, mpirun or directly). */
#ifndef HPCJIT_LAUNCHER_RUN_H
#define HPCJIT_LAUNCHER_RUN_H

extern const char run_usage[];
/* argv[0] is "run"; returns the job's exit status (128+N for signal N). */
int cmd_run(int argc, char **argv);

#endif
