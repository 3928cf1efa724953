"""Run the ``srfsym`` command in a fresh subprocess with a wall-clock limit (a hang fails the
test instead of stalling the suite)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cli(*args, timeout=120, cwd=None, env=None):
    """``srfsym *args`` in a subprocess of this interpreter, this checkout first on the path.
    Raises ``subprocess.TimeoutExpired`` (the test fails) past ``timeout`` seconds."""
    full_env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg", **(env or {}))
    return subprocess.run([sys.executable, "-c", "import sys; from srfsym.cli import main; "
                           "sys.exit(main())", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=full_env)
