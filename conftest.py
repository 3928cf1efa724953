"""Settings for the whole test session (tests/, notebooks/, the doctests of srfsym/).

pytest-xdist runs one worker per core. A multi-threaded BLAS in every worker, and in the
derivation scripts and notebook kernels the workers start, oversubscribes the cores: on this
project's 2-core CI machine two processes with OpenBLAS's default threads ran a derivation in
12.3 s where one thread each took 6.9 s. So each process gets one BLAS thread, unless the
user has chosen otherwise (the workers and their subprocesses inherit the environment).
"""
import os

import pytest

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# every test derives its closed forms afresh (the time-limit and rule tests time the
# derivation itself); tests/test_disk_cache.py turns the disk cache on in its own folder
os.environ.setdefault("SRFSYM_CACHE", "off")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """One worker per core, every file on one worker (``-n auto --dist loadfile``) when
    pytest-xdist is active and the command line chose nothing: ``python -m pytest`` runs in
    parallel, ``-n 0`` or ``-p no:xdist`` runs in this process (the options live here rather than
    in ``addopts``, which would make ``-p no:xdist`` an unknown-option error).  Both hooks are
    ``tryfirst``; this one, registered later, runs before xdist's (which reads the options)."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is None and config.option.dist == "no":
        config.option.numprocesses = "auto"
        config.option.dist = "loadfile"
