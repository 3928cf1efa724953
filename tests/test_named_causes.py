"""Bad input named by its cause, never a bare Python error (issue 31, item 10): each case
below printed ``ZeroDivisionError``, ``'<' not supported between instances of 'mpc' and
'int'``, ``Maximum allowed size exceeded``, ``float division by zero``, blamed ``alpha0 = 0``
for ``--eta 0``, or leaked numpy's ``invalid value encountered`` notes."""
import pytest

from cli_run import run_cli

PAIR = ["--alpha0", "2", "--eta", "3"]
CASES = [
    (["error", "--student", "tanh", "--teacher", "0", *PAIR, "--lam", "0.1", "--alpha", "1"],
     "teacher 0 is identically zero"),
    (["mapping", "--student", "tanh", "--teacher", "0*x", *PAIR], "identically zero"),
    (["error", "--student", "tanh", "--teacher", "0", *PAIR, "--lam", "0.1", "--alpha", "1",
      "--loss", "logistic", "--label-rule", "bernoulli"], "identically zero"),
    (["coefficients", "exp(x**2/4)", "--r", "1", "--c", "1", "--kappa", "0.5"],
     "diverge at kappa = 0.5, r = 1, c = 1"),
    (["coefficients", "exp(x**2/4)", "--r", "1", "--c", "1.5", "--kappa", "0.5"],
     "diverge at kappa = 0.5, r = 1, c = 1.5"),
    (["spectrum", "--student", "tanh", "--r", "0", "--c", "1e-300"],
     "too small for double precision"),
    (["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "0", "--lam",
      "0.1", "--alpha", "1", "--bulk", "step", "--d", "100"], "got --eta 0"),
    (["spectrum", "--student", "tanh", "--teacher", "sin", *PAIR, "--z", "1e300+1j"],
     "|z| = 1e+300 is beyond"),
    # a negative alpha0 or beta <= 0 reached the isotropic-bulk check before the solver's own
    # checks: "'<' not supported between instances of 'complex' and 'int'", "float division by zero"
    (["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "-2", "--eta", "3", "--lam",
      "0.1", "--alpha", "1"], "alpha0 (step samples per dimension) must be >= 0, got -2"),
    (["curve", "--student", "tanh", "--teacher", "sin", "--alpha0", "-2", "--eta", "3", "--lam",
      "0.1", "--alpha", "1"], "alpha0 (step samples per dimension) must be >= 0, got -2"),
    (["spectrum", "--student", "tanh", "--teacher", "sin", "--alpha0", "-2", "--eta", "3"],
     "alpha0 (step samples per dimension) must be >= 0, got -2"),
    (["simulate", "--student", "tanh", "--teacher", "sin", "--alpha0", "-2", "--eta", "3",
      "--lam", "0.1", "--alpha", "1", "--d", "50", "--seeds", "1"], "alpha0 must be >= 0, got -2"),
    (["error", "--student", "tanh", "--teacher", "sin", *PAIR, "--lam", "0.1", "--alpha", "1",
      "--beta", "-1"], "beta = p/d must be > 0, got -1"),
    (["curve", "--student", "tanh", "--teacher", "sin", *PAIR, "--lam", "0.1", "--alpha", "1",
      "--beta", "0"], "beta = p/d must be > 0, got 0"),
    (["simulate", "--student", "tanh", "--teacher", "sin", *PAIR, "--lam", "0.1", "--alpha", "1",
      "--d", "50", "--beta", "0"], "beta must be > 0, got 0"),
]


@pytest.mark.parametrize("argv,cause", CASES, ids=[" ".join(c[0][:4]) for c in CASES])
def test_the_cause_is_named(argv, cause):
    proc = run_cli("-q", *argv)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert cause in proc.stderr, proc.stderr
    assert "Error" not in proc.stderr and "encountered in" not in proc.stderr


def test_coefficients_inside_the_range_still_print():
    """exp(x^2/4) at c = 0.5: E[sigma^2] = E[exp(x^2/2)] is finite (c < 1)."""
    proc = run_cli("-q", "coefficients", "exp(x**2/4)", "--r", "1", "--c", "0.5", "--kappa", "0.5")
    assert proc.returncode == 0, proc.stderr
    import mpmath
    s = mpmath.sqrt(mpmath.mpf("0.5"))

    def gauss(f):
        return mpmath.quad(lambda z: f(z) * mpmath.exp((0.5 + s * z) ** 2 / 4) * mpmath.npdf(z),
                           [-mpmath.inf, mpmath.inf])
    mu0, mu1 = gauss(lambda z: 1), gauss(lambda z: z) / s          # Stein: E[sigma'] = E[z sigma]/sqrt(c)
    values = {line.split()[0]: float(line.split()[2]) for line in proc.stdout.splitlines()
              if line.strip().startswith(("mu0 ", "mu1 "))}
    assert values["mu0"] == pytest.approx(float(mu0), rel=1e-14)
    assert values["mu1"] == pytest.approx(float(mu1), rel=1e-14)


def test_a_huge_spike_strength_is_solved_not_refused():
    """bounds at r = 1e300: the kappa rule is wider than any interpolation grid (it was
    'Maximum allowed size exceeded'); the values continue those at r = 1e8."""
    proc = run_cli("-q", "bounds", "--student", "tanh", "--teacher", "sin", "--r", "1e300",
                   "--c", "1", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "lower = 0.097913" in proc.stdout and "kernel baseline = 0.06445291721" in proc.stdout


def test_python_dash_m_runs_the_command():
    """`python -m srfsym` and `python -m srfsym.cli` are the srfsym command (a bad option gives
    its usage error and exit 2, --version the version)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    for mod in ("srfsym", "srfsym.cli"):
        ok = subprocess.run([sys.executable, "-m", mod, "--version"], capture_output=True,
                            text=True, env=env, timeout=120)
        assert ok.returncode == 0 and ok.stdout.startswith("srfsym "), ok.stderr
        bad = subprocess.run([sys.executable, "-m", mod, "error", "--no-such-option"],
                             capture_output=True, text=True, env=env, timeout=120)
        assert bad.returncode == 2 and "required: --student" in bad.stderr
