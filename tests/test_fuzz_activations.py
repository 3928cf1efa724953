"""Property-based fuzz test (issue #14 item 5): activation strings from a small grammar.

For each generated activation, ``hermite_constants`` either gives values or raises an error
of the ValueError family, within the time budget; and every printed value agrees with an
independent mpmath quadrature (the activation evaluated from the grammar tree, not from
srfsym's parser or generated code) to the digits it shows.

Bounded for CI: ``max_examples`` examples, derandomized (the same examples every run).
"""
import time

import mpmath
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from srfsym import gaussian  # noqa: E402
from srfsym.core.budget import time_budget  # noqa: E402
from srfsym.symbolic.hermite import hermite_constants  # noqa: E402

BUDGET = 8.0          # seconds of symbolic + quadrature work per activation
DPS = 12              # digits requested

# one-argument building blocks: (text template, mpmath function, kink at argument 0?)
UNARY = {
    "tanh": ("tanh({})", mpmath.tanh, False),
    "sin": ("sin({})", mpmath.sin, False),
    "erf": ("erf({})", mpmath.erf, False),
    "atan": ("atan({})", mpmath.atan, False),
    "gauss": ("exp(-({})**2/2)", lambda u: mpmath.exp(-u * u / 2), False),
    "square": ("({})**2", lambda u: u * u, False),
    "cube": ("({})**3", lambda u: u**3, False),
    "relu": ("Max({}, 0)", lambda u: max(u, 0), True),
    "abs": ("abs({})", abs, True),
    "softsign": ("({0})/(1 + abs({0}))", lambda u: u / (1 + abs(u)), True),
}

small = st.sampled_from([-2, -1, 1, 2, 3])
offset = st.sampled_from([0, 0, "1/2", "-1/3", 1])


@st.composite
def terms(draw):
    name = draw(st.sampled_from(sorted(UNARY)))
    a, b, c = draw(small), draw(offset), draw(small)
    return name, a, b, c


@st.composite
def activations(draw):
    return draw(st.lists(terms(), min_size=1, max_size=2))


def render(spec):
    parts = []
    for name, a, b, c in spec:
        arg = f"{a}*x" + (f" + {b}" if b != 0 else "")
        parts.append(f"{c}*" + UNARY[name][0].format(arg))
    return " + ".join(parts)


def reference(spec):
    """mpmath evaluator of sigma and its kinks, from the grammar tree."""
    fs, kinks = [], set()
    for name, a, b, c in spec:
        bb = mpmath.mpf(mpmath.fraction(*map(int, str(b).split("/"))) if "/" in str(b)
                        else mpmath.mpf(b))
        fs.append((UNARY[name][1], mpmath.mpf(a), bb, mpmath.mpf(c)))
        if UNARY[name][2]:
            kinks.add(-bb / a)
    return (lambda z: sum(c * f(a * z + b) for f, a, b, c in fs)), sorted(kinks)


def gauss(f, kinks):
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)
    # fixed cuts as well as the kinks: one tanh-sinh panel on [-40, 40] can miss the bulk
    pts = sorted({mpmath.mpf(p) for p in (-40, -12, -6, -3, -1, 0, 1, 3, 6, 12, 40)} | set(kinks))
    return mpmath.quad(lambda z: f(z) * phi(z), pts)


def agrees(text, ref):
    """``text`` (the printed decimal) is right to its last shown digit (+-1 unit)."""
    if text == "0":
        return abs(ref) < mpmath.mpf(10) ** -(DPS - 2)
    mant = text.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    digits = len(mant)
    with mpmath.workdps(40):
        value = mpmath.mpf(text)
        return abs(value - ref) <= 1.01 * abs(value) * mpmath.mpf(10) ** (1 - digits)


@pytest.fixture(autouse=True, scope="module")
def _no_sympy_integrate():
    old = gaussian.INTEGRATE_TIMEOUT
    gaussian.set_integrate_timeout(0)       # the rule table and quadrature only: fast examples
    yield
    gaussian.set_integrate_timeout(old)


@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(activations())
def test_fuzz_hermite_constants(spec):
    text = render(spec)
    t0 = time.monotonic()
    shown = {}
    try:
        with time_budget(BUDGET):
            hc = hermite_constants(text)
            for key in ("mu0", "mu1", "second_moment"):
                shown[key] = getattr(hc, key).decimal(DPS)
    except ValueError:                # the error family (ActivationError, divergence, budget)
        pass
    elapsed = time.monotonic() - t0
    assert elapsed < BUDGET + 30, f"{text}: {elapsed:.1f} s past the budget"
    f, kinks = reference(spec)
    with mpmath.workdps(30):
        refs = {"mu0": gauss(f, kinks), "mu1": gauss(lambda z: z * f(z), kinks),
                "second_moment": gauss(lambda z: f(z) ** 2, kinks)}
    for key, printed in shown.items():
        assert agrees(printed, refs[key]), (text, key, printed, mpmath.nstr(refs[key], 20))
