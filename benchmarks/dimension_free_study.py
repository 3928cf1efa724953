"""The dimension-free deterministic equivalent against simulations and srfsym's proportional
fixed point (docs/theory.md (o.5)); prints three tables.

1. linear random features, Gaussian design, Lam_k = k^-1.5 (M = 2000 features in the data),
   theta_k = k^-(1.5 r + 1/2), r = 0.4, noise 0.05: exact excess risk per draw, 10 seeds;
2. tanh features on the sphere (d = 20, 30), target sin(<theta, x>), noise 0.1, n up to d^2.5;
3. the proportional case n = alpha d, p = beta d: the equivalent on the exact Gegenbauer spectrum
   against srfsym's r = 0 fixed point (plain random features) as d grows;
4. slopes: simulated excess risk of linear random features (M = 3000) against the finite-M
   equivalent's slope and the symbolic exponent gamma (noiseless), p = n^q, lam = n^(1-l);
5. the open gap: max(x + 1/2, 0) features on the sphere, target He1 + He2/sqrt2 + He3/sqrt6, at
   d = 15, 25, against the equivalent, and (d = 15) a Gaussian design with the same spectrum.

Run: PYTHONPATH=. python benchmarks/dimension_free_study.py [--quick]
"""
import sys
import time

import numpy as np

from srfsym.simulation.random_features import simulate_linear_features, simulate_sphere_features
from srfsym.theory.dimension_free.equivalent import deterministic_equivalent
from srfsym.theory.dimension_free.spectra import PowerLawSpectrum
from srfsym.theory.dimension_free.sphere import sphere_spectrum
from srfsym.theory.fixed_point import solve_srf

QUICK = "--quick" in sys.argv


def linear_table():
    m, a, r, noise = 2000, 1.5, 0.4, 0.05
    k = np.arange(1, m + 1.0)
    lam_k, theta = k**-a, k ** -(a * r + 0.5)
    spec = PowerLawSpectrum(a, r).eigen(m)
    print(f"\n1. linear random features, M = {m}, a = {a}, r = {r}, noise {noise}")
    print(f"{'n':>6} {'p':>6} {'lam':>8} {'simulation':>22} {'equivalent':>11} {'z':>6}")
    pts = [(400, 200, 1e-2), (1000, 300, 1e-4), (300, 1200, 1.0), (800, 800, 1e-3),
           (2000, 500, 0.1), (500, 2000, 1e-3)]
    for n, p, lam in pts[:3] if QUICK else pts:
        sim = simulate_linear_features(lam_k, theta, n, p, lam, noise, seeds=4 if QUICK else 10)
        eq = float(deterministic_equivalent(spec, n, p, lam, noise).excess_risk)
        z = (sim["excess_risk"] - eq) / sim["sem"]
        print(f"{n:6d} {p:6d} {lam:8.0e} {sim['excess_risk']:12.5f} ± {sim['sem']:.5f} "
              f"{eq:11.5f} {z:6.2f}")


def sphere_table():
    print("\n2. tanh features on the sphere, target sin(<theta, x>), noise 0.1, lam 0.1")
    print(f"{'d':>4} {'n':>6} {'p':>6} {'simulation':>22} {'equivalent':>11} {'z':>6}")
    pts = [(20, 400, 200), (20, 2000, 400), (20, 1789, 100), (30, 900, 2000), (30, 4929, 300)]
    for d, n, p in pts[:2] if QUICK else pts:
        sim = simulate_sphere_features(np.tanh, lambda x: np.sin(x[:, 0]), d, n, p, 0.1,
                                       noise=0.1, seeds=3 if QUICK else 6, n_test=4000)
        eq = float(deterministic_equivalent(sphere_spectrum("tanh", "sin", d, kmax=8), n, p,
                                            0.1, 0.1).excess_risk)
        z = (sim["excess_risk"] - eq) / sim["sem"]
        print(f"{d:4d} {n:6d} {p:6d} {sim['excess_risk']:12.5f} ± {sim['sem']:.5f} {eq:11.5f} "
              f"{z:6.2f}")


def proportional_table():
    alpha, beta, lam = 2.0, 1.5, 0.1
    ref = solve_srf("tanh", "sin", 0.0, 1.0, 1.0, lam, alpha, beta).test_error
    print(f"\n3. n = {alpha} d, p = {beta} d, lam = {lam}, tanh / sin: srfsym r = 0 fixed point "
          f"{ref:.8f}")
    print(f"{'d':>6} {'equivalent':>12} {'relative gap':>13} {'d x gap':>8}")
    for d in (25, 50, 100, 200, 400, 800, 1600, 3200):
        e = float(deterministic_equivalent(sphere_spectrum("tanh", "sin", d, kmax=8), alpha * d,
                                           beta * d, lam).test_error)
        print(f"{d:6d} {e:12.8f} {e / ref - 1:13.3e} {d * (e / ref - 1):8.3f}")


def slope_table():
    import sympy as sp

    from srfsym.theory.dimension_free.scaling import A, L, Q, R, gamma_expression
    m = 3000
    print(f"\n4. slopes, linear random features, M = {m}, noiseless, 4 seeds")
    print(f"{'a':>4} {'r':>4} {'q':>4} {'l':>4} {'gamma':>7} {'sim slope':>10} {'eq slope':>9}  n")
    for a, r, q, l, ns in ((2.0, 0.4, 1.0, 0.5, (200, 400, 800, 1600)),
                           (2.0, 0.8, 0.75, 2.0, (400, 1600, 6400))):
        k = np.arange(1, m + 1.0)
        lam_k, theta = k**-a, k ** -(a * r + 0.5)
        spec = PowerLawSpectrum(a, r).eigen(m)
        sims, eqs = [], []
        for n in ns[:2] if QUICK else ns:
            p, lam = int(round(n**q)), n ** (1 - l)
            sims.append(simulate_linear_features(lam_k, theta, n, p, lam, 0.0, seeds=4)
                        ["excess_risk"])
            eqs.append(float(deterministic_equivalent(spec, n, p, lam).excess_risk))
        x = np.log(np.array(ns[:len(sims)], float))
        gam = float(gamma_expression(False).subs({A: sp.nsimplify(a), R: sp.nsimplify(r),
                                                  Q: sp.nsimplify(q), L: sp.nsimplify(l)}))
        s_sim = -np.polyfit(x, np.log(sims), 1)[0]
        s_eq = -np.polyfit(x, np.log(eqs), 1)[0]
        print(f"{a:4.1f} {r:4.1f} {q:4.2f} {l:4.1f} {gam:7.3f} {s_sim:10.3f} {s_eq:9.3f}  "
              f"{list(ns[:len(sims)])}")


def gap_table():
    from srfsym.theory.dimension_free.sphere import harmonic_dimension
    student, teacher = "Max(x + 0.5, 0)", "x + (x**2 - 1)/sqrt(2) + (x**3 - 3*x)/sqrt(6)"

    def sig(u):
        return np.maximum(u + 0.5, 0)

    def tgt(x):
        return x[:, 0] + (x[:, 0]**2 - 1) / np.sqrt(2) + (x[:, 0]**3 - 3 * x[:, 0]) / np.sqrt(6)

    print("\n5. sphere, max(x + 1/2, 0) features, target He1 + He2/sqrt2 + He3/sqrt6, p = 1000, "
          "lam = 0.1")
    print(f"{'d':>4} {'n':>5} {'sphere simulation':>20} {'Gaussian, same spectrum':>24} "
          f"{'equivalent':>11}")
    for d in (15,) if QUICK else (15, 25):
        spec = sphere_spectrum(student, teacher, d, kmax=8)
        low = sphere_spectrum(student, teacher, d, kmax=3)         # the Gaussian design's spectrum
        m = low.multiplicity.astype(int)
        lam_k = np.repeat(low.eigenvalues, m)
        theta = np.concatenate([np.full(mk, np.sqrt(t / mk)) for mk, t in zip(m, low.target2)])
        for frac in (0.3, 1.0, 3.0):
            n = int(frac * harmonic_dimension(d, 2))
            sim = simulate_sphere_features(sig, tgt, d, n, 1000, 0.1, seeds=5, n_test=2000)
            gauss = (simulate_linear_features(lam_k, theta, n, 1000, 0.1, 0.0, seeds=10)
                     if d == 15 else None)
            eq = float(deterministic_equivalent(spec, n, 1000, 0.1).excess_risk)
            g = "" if gauss is None else f"{gauss['excess_risk']:.3f} ± {gauss['sem']:.3f}"
            print(f"{d:4d} {n:5d} {sim['excess_risk']:11.3f} ± {sim['sem']:.3f} {g:>24} "
                  f"{eq:11.3f}")


if __name__ == "__main__":
    t = time.time()
    proportional_table()
    linear_table()
    sphere_table()
    slope_table()
    gap_table()
    print(f"\n{time.time() - t:.0f} s")
