"""Library calls on several threads: mpmath precision stays scoped (mp.dps is left at 15) and
every high-precision value keeps all its digits (mpmath's context is process-global: the
library's precision sections hold one lock, srfsym.core.precision)."""
from concurrent.futures import ThreadPoolExecutor

import mpmath
import pytest

from srfsym.symbolic.activations import activation
from srfsym.symbolic.gaussian import gaussian_expectation


@pytest.mark.timeout(300)
def test_ten_calls_on_six_threads_keep_precision_and_digits():
    assert mpmath.mp.dps == 15
    tanh = gaussian_expectation(activation("tanh").expr, 1, known_closed_form=False)
    sigmoid = gaussian_expectation(activation("sigmoid").expr, 2, known_closed_form=False)

    def call(i):
        a = mpmath.mpf(i) / 8          # exact at any precision
        return (tanh if i % 2 else sigmoid).mpmath(a, 1, dps=30 + i)

    with ThreadPoolExecutor(6) as pool:
        got = list(pool.map(call, range(10)))
    assert mpmath.mp.dps == 15
    for i, v in enumerate(got):        # independent quadrature, one thread, 45 digits
        with mpmath.workdps(45):
            a = mpmath.mpf(i) / 8
            f = ((lambda z: z * mpmath.tanh(a + z)) if i % 2 else
                 (lambda z: z * z / (1 + mpmath.exp(-(a + z)))))
            ref = mpmath.quad(lambda z: f(z) * mpmath.npdf(z), [-mpmath.inf, -a, mpmath.inf])
            assert abs(v - ref) <= abs(ref) * mpmath.mpf(10) ** (-(30 + i) + 3), (i, v, ref)


def test_the_library_never_sets_the_global_precision():
    """No ``mp.dps =`` / ``mp.prec =`` assignment in the package (doctests included)."""
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parent.parent / "srfsym"
    pattern = re.compile(r"\bmp\.(dps|prec)\s*=[^=]")
    hits = [f"{p.relative_to(root)}:{n}" for p in root.rglob("*.py")
            for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert not hits, hits
