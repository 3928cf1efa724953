"""Shared test fixtures and helpers (mpmath precision hygiene, high-precision comparison)."""
import mpmath
import pytest


@pytest.fixture(autouse=True)
def _restore_mp_dps():
    """Every test leaves the global mpmath precision as it found it."""
    dps = mpmath.mp.dps
    yield
    mpmath.mp.dps = dps


def assert_mp_close(got, ref, dps, what=""):
    """|got - ref| <= 10^(-dps+5) * max(1, |ref|), compared at dps + 15 working digits."""
    mpf = mpmath.mpf
    with mpmath.workdps(dps + 15):
        got, ref = mpf(got), mpf(ref)  # (mpf() rounds to the working precision)
        tol = mpf(10) ** (-dps + 5)
        ok = abs(got - ref) <= tol * max(1, abs(ref))
    assert ok, (
        f"{what}: got {mpmath.nstr(got, dps)}, reference {mpmath.nstr(ref, dps)}, "
        f"difference {mpmath.nstr(abs(got - ref), 3)} > {mpmath.nstr(tol, 3)}")


def hermite_he(k, x):
    """Probabilists' Hermite polynomial He_k(x) by its three-term recurrence (mpmath-ready), the
    tests' own reference, independent of srfsym's Hermite code."""
    p0, p1 = mpmath.mpf(1), x
    if k == 0:
        return p0
    for n in range(1, k):
        p0, p1 = p1, x * p1 - n * p0
    return p1
