"""Ctrl-C on a sweep (issue 31, item 7): SIGINT reaches the whole process group (the parent
and its worker processes); the sweep stops with one line -- "interrupted; N rows saved ...;
rerun the same command to resume" -- exit status 130, no traceback, and the table holds
exactly the rows it reports."""
import os
import signal
import subprocess
import sys
import time

from cli_run import ROOT
from srfsym.sweep.run import read_results

TOML = """
[theory]
student = "tanh"
teacher = "sin"
alpha0 = [2, 3, 5, 10, 20, 40, 60, 80]
eta = 3
lam = 0.1
alpha = [1.0]
"""


def test_ctrl_c_reports_what_was_saved(tmp_path):
    (tmp_path / "g.toml").write_text(TOML)
    out = tmp_path / "r.csv"
    env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from srfsym.cli import main; "
                             "sys.exit(main())", "-q", "sweep", str(tmp_path / "g.toml"),
                             "--out", str(out), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)           # its own group, as a terminal's
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and len(out.read_text().splitlines()) >= 2:    # a row is saved
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)                   # Ctrl-C
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and stdout == ""
    (line,) = [x for x in stderr.splitlines() if x.strip()]
    assert line.startswith("srfsym: interrupted; ") and "rerun the same command to resume" in line, line
    saved = int(line.split("(")[1].split(" of ")[0])
    assert saved == len(read_results(out)) >= 1
