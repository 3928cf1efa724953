"""The layout as a checked contract: imports point one way along the derivation chain.

The layers are written down in ``pyproject.toml`` (``[tool.importlinter]``); ``lint-imports``
checks the real import graph against them.  A second run with the chain turned upside down must
find broken contracts: the check sees the imports it claims to check.
"""
import ast
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _lint(config=None):
    exe = pathlib.Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe) if exe.exists() else "lint-imports"]
    if config:
        cmd += ["--config", str(config)]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


def test_import_contracts_are_kept():
    res = _lint()
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 broken" in res.stdout


def test_a_backwards_arrow_is_caught(tmp_path):
    """The same layers in reverse order: every real import is now a backwards arrow."""
    cfg = tmp_path / "reversed.toml"
    cfg.write_text('[tool.importlinter]\nroot_package = "srfsym"\n\n'
                   '[[tool.importlinter.contracts]]\nname = "reversed chain"\ntype = "layers"\n'
                   'layers = ["srfsym.core", "srfsym.symbolic", "srfsym.step", "srfsym.theory"]\n')
    res = _lint(cfg)
    assert res.returncode != 0
    assert "BROKEN" in res.stdout
    assert "srfsym.symbolic" in res.stdout and "srfsym.core" in res.stdout


@pytest.mark.parametrize("old, new", [("srfsym.fixed_point", "srfsym.theory.fixed_point"),
                                      ("srfsym.mapping", "srfsym.step.mapping"),
                                      ("srfsym.activations", "srfsym.symbolic.activations"),
                                      ("srfsym.simulate", "srfsym.simulation.simulate"),
                                      ("srfsym.theory.exact_bulk",
                                       "srfsym.theory.spectral.exact_bulk"),
                                      ("srfsym.theory.square_channel",
                                       "srfsym.theory.channels.square"),
                                      ("srfsym.feature_spectrum",
                                       "srfsym.theory.feature.spectrum")])
def test_old_module_paths_are_the_new_modules(old, new):
    """Code written against the flat layout keeps working, on the very same module objects."""
    import importlib
    assert importlib.import_module(old) is importlib.import_module(new)


def _code_lines(node):
    """Lines of a function without its docstring."""
    n = node.end_lineno - node.lineno + 1
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None),
                                                             ast.Constant) \
            and isinstance(body[0].value.value, str):
        n -= body[0].end_lineno - body[0].lineno + 1
    return n


def test_modules_and_functions_stay_readable():
    """No module over 600 lines, no function over 100 lines of code (docstrings excluded):
    what grows past that is split along the concepts it mixes."""
    big_modules, big_functions = [], []
    for path in (ROOT / "srfsym").rglob("*.py"):
        text = path.read_text()
        if len(text.splitlines()) > 600:
            big_modules.append((str(path.relative_to(ROOT)), len(text.splitlines())))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _code_lines(node) > 100:
                big_functions.append((f"{path.relative_to(ROOT)}:{node.name}", _code_lines(node)))
    assert not big_modules and not big_functions, (big_modules, big_functions)
