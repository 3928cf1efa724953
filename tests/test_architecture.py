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


def _module_graph():
    """``{module: {imported srfsym modules}}`` from every import statement, those inside
    functions included (``from X import name`` counts as an import of the submodule
    ``X.name`` when that is a module, else of ``X``)."""
    mods = {}
    for path in (ROOT / "srfsym").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    graph = {}
    for mod, (path, is_pkg) in mods.items():
        package = mod.split(".") if is_pkg else mod.split(".")[:-1]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name.startswith("srfsym")}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("srfsym"):
                    continue
                edges |= {f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target
                          for a in node.names}
        graph[mod] = {e for e in edges if e in mods and e != mod}
    return graph


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_counting_imports_inside_functions():
    """No two modules import each other, directly or around a circle, not even through an
    import inside a function (``python -m pytest tests/test_architecture.py -k circle``)."""
    graph = _module_graph()
    assert "srfsym.theory.dispatch" in graph["srfsym.theory.fixed_point"]
    assert _cycles(graph) == []
    # the check sees a circle when there is one
    graph["srfsym.core.values"] = graph["srfsym.core.values"] | {"srfsym.theory.fixed_point"}
    assert _cycles(graph)


def test_no_private_name_from_a_sibling_package():
    """A name with a leading underscore is imported only inside its own package, or between a
    package and the packages inside it; never from a sibling package (``srfsym.simulation``
    from ``srfsym.step``, ``theory.channels`` from ``theory.spectral``, ...)."""
    bad = []
    for path in (ROOT / "srfsym").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                target = package[:len(package) - node.level + 1] + (
                    node.module.split(".") if node.module else [])
            elif (node.module or "").startswith("srfsym"):
                target = node.module.split(".")
            else:
                continue
            target_package = target if ROOT.joinpath(*target).is_dir() else target[:-1]
            related = (target_package[:len(package)] == package
                       or package[:len(target_package)] == target_package)
            bad += [(".".join(parts), ".".join(target), a.name) for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__") and not related]
    assert bad == []


def test_no_function_over_100_lines_with_its_docstring():
    too_long = []
    for path in (ROOT / "srfsym").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.end_lineno - node.lineno + 1 > 100:
                too_long.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert too_long == []
