"""Settings for the whole test session (tests/, notebooks/, the doctests of srfsym/).

pytest-xdist runs one worker per core. A multi-threaded BLAS in every worker, and in the
derivation scripts and notebook kernels the workers start, oversubscribes the cores: on this
project's 2-core CI machine two processes with OpenBLAS's default threads ran a derivation in
12.3 s where one thread each took 6.9 s. So each process gets one BLAS thread, unless the
user has chosen otherwise (the workers and their subprocesses inherit the environment).
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
