"""Every example of the README runs as written.

The Python block(s) are run as scripts and every ``srfsym ...`` line of the README's shell
blocks is run through the installed ``srfsym`` command, each in a fresh subprocess in a
temporary directory (so files such as ``--plot curve.png`` land there).  A line passes when it
exits 0, prints no traceback and writes the files it names.  Lines that take more than a few
seconds are marked ``slow`` (deselect them with ``-m "not slow"`` while developing); the
default run executes all of them.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

# README lines that compute for more than a few seconds (simulations, mpmath, optimisers)
SLOW = ("--simulate", "--seeds", "--dps 30", "--optimize", "--spectrum sample", "derive ",
        "sweep ")


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def cli_lines():
    lines = []
    for block in blocks("bash"):
        for line in block.splitlines():
            if line.strip().startswith("srfsym"):
                lines.append(line.strip())
    return lines


def _param(line):
    marks = [pytest.mark.slow] if any(s in line for s in SLOW) else []
    return pytest.param(line, marks=marks, id=line[:70])


def _env():
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _srfsym():
    exe = shutil.which("srfsym")
    if exe is None:
        pytest.skip("the srfsym command is not installed (pip install -e .)")
    return exe


def test_readme_has_examples():
    assert len(blocks("python")) >= 1
    assert len(cli_lines()) >= 10
    assert all("..." not in line for line in cli_lines())    # no elided arguments


def test_setup_has_exactly_two_commands():
    setup = README[README.index("## Set-up"):README.index("## What it does")]
    commands = [line for block in re.findall(r"```bash\n(.*?)```", setup, flags=re.S)
                for line in block.splitlines() if line.strip()]
    assert commands == ['python -m pip install -e . && srfsym derive',
                        'python -m pip install -e ".[test]" && python -m pytest']


@pytest.mark.slow
@pytest.mark.parametrize("code", blocks("python"),
                         ids=[f"python-block-{i}" for i in range(len(blocks("python")))])
def test_python_block_runs(code, tmp_path):
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("line", [_param(line) for line in cli_lines()])
def test_cli_line_runs(line, tmp_path):
    argv = shlex.split(line, comments=True)
    assert argv[0] == "srfsym"
    shutil.copytree(ROOT / "examples", tmp_path / "examples")     # files the lines read
    proc = subprocess.run([_srfsym()] + argv[1:], cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{line}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr
    assert proc.stdout.strip()                                  # it says something
    for flag in ("--plot",):
        if flag in argv:
            written = tmp_path / argv[argv.index(flag) + 1]
            assert written.is_file() and written.stat().st_size > 1000, f"{flag} not written"
