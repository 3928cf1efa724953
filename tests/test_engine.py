"""The fixed-point engine: its two sides are interchangeable parts (docs/theory.md (f), (k.7))."""
import ast
import pathlib

import numpy as np
import pytest

from srfsym.theory.channels.kappa_quadrature import channel_data
from srfsym.theory.engine import _Problem, _START, solve_general
from srfsym.theory.fixed_point import solve_srf
from srfsym.theory.interfaces import Channel, SpectralSide
from srfsym.theory.spectral.block_wishart import block_wishart_map
from srfsym.theory.spectral.eigenvalues import EigenvalueSpectrum
from srfsym.theory.spectral.marchenko_pastur import MarchenkoPastur, mp_stieltjes_pair
from srfsym.theory.spectral.sample import SampledSpectrum
from srfsym.theory.channels.square import GroupSquareLossChannel, SquareLossChannel

R, C, GAMMA = 1.134, 1.019, 0.9


def test_the_parts_fulfil_their_contracts():
    assert issubclass(SquareLossChannel, Channel) and issubclass(GroupSquareLossChannel, Channel)
    for back_end in (MarchenkoPastur, SampledSpectrum, EigenvalueSpectrum):
        assert issubclass(back_end, SpectralSide)


def test_generic_iteration_reproduces_the_structured_solver():
    # the path a channel without a closed (V1, V2) subsystem takes, on the square loss
    res = solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.5, 1.5, nodes=72, tol=1e-12)
    P = _Problem(channel_data("tanh", "sin", R, C, GAMMA, nodes=72), MarchenkoPastur(1.5, C),
                 1.5, 0.1, 1.5)
    state, b0, _ = solve_general(P, _START, tol=1e-12)
    for a, b in zip(state, res.state):
        assert abs(a - b) < 1e-9 * max(1.0, abs(b))
    assert abs(P.channel.observables(state)["test_error"] - res.test_error) < 1e-10
    assert b0 == 0.0


def test_eigenvalue_array_with_projections_is_the_sample():
    # Omega's eigenvalues and the projections F, H of one sample, through the eigenvalue
    # back end: the same fixed point as the Sherman-Morrison back end of that sample
    sample = SampledSpectrum(120, beta=1.5, c=C, seed=4)
    arr = EigenvalueSpectrum(*sample.omega_spectrum())
    m1, m2 = arr.moments(0.3, 1.7), sample.moments(0.3, 1.7)
    assert max(abs(a / b - 1) for a, b in zip(m1, m2)) < 1e-9
    a = solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.0, 1.5, spectrum=arr, nodes=72)
    b = solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.0, 1.5, spectrum=sample, nodes=72)
    assert abs(a.test_error / b.test_error - 1) < 1e-9


@pytest.mark.parametrize("z", [0.7 + 0.2j, 2.5 + 1e-3j, -0.4 + 0j])
def test_block_wishart_equation_for_one_group_is_marchenko_pastur(z):
    # r = 1 / (base + [B (I + beta pi r B)^-1]): K = 1, base = -z, B = Vhat_1 c; its solution
    # is E 1/S of the MP closed form continued to complex arguments
    beta, c, v1 = 0.7, 1.3, 1.1
    inv, _ = mp_stieltjes_pair(-z, v1, c, beta)
    r = np.array([inv])
    for _ in range(3000):
        r = 0.5 * r + 0.5 * block_wishart_map(r, np.array([-z]), np.array([[v1 * c]]),
                                               np.ones(1), beta)
    assert abs(r[0] - inv) < 1e-12 * abs(inv)


def _imports(path, package):
    """Modules of ``package`` imported anywhere in ``path`` (function-level imports too)."""
    tree = ast.parse(path.read_text())
    mod = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
    base = mod.split(".")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            parent = base[:len(base) - node.level] if path.name != "__init__.py" else base[
                :len(base) - node.level + 1]
            target = ".".join(parent + ([node.module] if node.module else []))
            names = [target] + [f"{target}.{a.name}" for a in node.names]
            out |= {n for n in names if n.startswith(package)}
    return mod, out


ROOT = pathlib.Path(__file__).resolve().parents[1] / "srfsym"


@pytest.mark.parametrize("package", ["srfsym.theory", "srfsym.symbolic"])
def test_no_import_circles(package):
    files = sorted((ROOT / package.split(".")[1]).rglob("*.py"))
    graph = {}
    for f in files:
        mod, deps = _imports(f, package)
        graph[mod.removesuffix(".__init__")] = deps
    graph = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    seen, stack = set(), []

    def visit(m):
        if m in stack:
            raise AssertionError("import circle: " + " -> ".join(stack[stack.index(m):] + [m]))
        if m in seen:
            return
        stack.append(m)
        for d in sorted(graph[m]):
            visit(d)
        stack.pop()
        seen.add(m)
    for m in sorted(graph):
        visit(m)
