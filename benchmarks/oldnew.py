"""Old and new in one run: the benchmarks that time a base commit beside the working tree run
each side in a fresh process from its own source tree (shared by bench_front_door.py and
bench_user_loss.py)."""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: Put before every child program: ``best(f, repeat)`` is ``((wall, cpu), result)``, the least
#: wall and CPU time of ``repeat`` calls of ``f``.
TIMING = """import time


def best(f, repeat):
    ts, cpu, out = [], [], None
    for _ in range(repeat):
        c = time.process_time(); t = time.perf_counter(); out = f()
        ts.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
    return (min(ts), min(cpu)), out

"""


def run_child(code_dir, child, *argv):
    """Run the program ``child`` (Python source, after :data:`TIMING`) with srfsym from
    ``code_dir`` and arguments ``argv``; its last line of standard output is JSON, returned
    parsed."""
    env = dict(os.environ, PYTHONPATH=str(code_dir))
    res = subprocess.run([sys.executable, "-c", TIMING + child, *argv], env=env, capture_output=True,
                         text=True, timeout=3600, cwd=str(code_dir))
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} in {code_dir} failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def unpack(commit, into):
    """The source tree of ``commit`` written into the directory ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
