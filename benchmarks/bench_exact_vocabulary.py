"""The exact K-group prior with a readout vocabulary (``bulk="exact"``, docs/theory.md (g.5.2))
against the realised K-group prior on the network's first layers (docs/theory.md (g.4.1)), as d
grows: ``V1, V2`` (traces) and the direction sums ``F, H`` (quadratic forms along one direction,
which fluctuate by O(d^-1/2) from layer to layer) at one ``(V1^, V2^)``, with the isotropic
block-Wishart prior beside them; and the cost of the exact back end (the contour rule, one prior
evaluation, one solve).

Case: tanh/sin, alpha0 = 2, eta = 3, vocabulary {1, 2} (1/2, 1/2), lambda = 0.1, beta = 1,
``V1^ = [[1, 0.3], [0.3, 2]]``, ``V2^ = [0.2, 0.3]``.

``--spectrum``: the feature spectrum with the vocabulary (tanh/sin, alpha0 = 0.5, eta = 5,
beta = 2, p = n, where the step's bulk is far from isotropic): the network's eigenvalues of
``Phi^T Phi / n`` (fresh inputs, the K giant outliers left out) against the exact law split by
letter and the isotropic block-Wishart law: Stieltjes values and the KS distance of the bulk (both
laws seen through the same Cauchy smoothing ``eps = 1e-4`` bulk mean, CDFs from the right).

``--lazy-rule``: the cost of the first contour rule where only the feature spectrum is wanted
(``srfsym spectrum`` of :data:`LAZY_COMMAND`, the letters {1, 10}, eta = 10, alpha0 = 0.25): the
command run twice, each in a fresh process, with the rule built when the bulk is made (old: as
``ExactGroupBulk`` did before the rule became lazy) and on first use (new); wall and CPU seconds,
whether the rule was built, and whether the two printed reports are identical.

    python benchmarks/bench_exact_vocabulary.py --d 500 1000 2000 --seeds 8
    python benchmarks/bench_exact_vocabulary.py --spectrum --d 1000 2000 --seeds 3
    python benchmarks/bench_exact_vocabulary.py --lazy-rule
"""
import argparse
import json
import math
import subprocess
import sys
import time

import numpy as np

CASE = ("tanh", "sin", 2.0, 3.0)
LAM, BETA = 0.1, 1.0
V1HAT, V2HAT = np.array([[1.0, 0.3], [0.3, 2.0]]), np.array([0.2, 0.3])
NAMES = ("V1_11", "V1_12", "V1_22", "V2_1", "V2_2", "F_11", "F_12", "F_22", "H_11", "H_12",
         "H_22")


def _flat(pr):
    return np.concatenate([pr.V1.ravel()[[0, 1, 3]], pr.V2, pr.F.ravel()[[0, 1, 3]],
                           pr.H.ravel()[[0, 1, 3]]])


def _ks(lam, fs, eps):
    """KS distance of the eigenvalues ``lam`` to ``fs``'s density, both Cauchy-smoothed."""
    hi = lam[-1] * 1.3
    x = np.concatenate([np.geomspace(1e-6 * hi, 0.02 * hi, 150), np.linspace(0.02 * hi, hi, 900)[1:]])
    rho = np.asarray(fs.density(x, eps=eps, tol=1e-6))
    seg = 0.5 * (rho[1:] + rho[:-1]) * np.diff(x)
    tail_th = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])
    tail_emp = np.array([np.mean(0.5 - np.arctan((t - lam) / eps) / math.pi) for t in x])
    return float(np.max(np.abs(tail_th - tail_emp)))


def spectrum_table(ds, seeds):
    from srfsym.step.realised import seed_children, network_first_layer
    from srfsym.step.vocabulary import vocabulary
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.spectral.exact_bulk_groups import ExactGroupBulk
    st, te, a0, eta, beta = "tanh", "sin", 0.5, 5.0, 2.0
    voc = vocabulary([1, 2])
    iso = feature_spectrum(st, te, alpha0=a0, eta=eta, beta=beta, vocabulary=voc)
    ex = feature_spectrum(st, te, alpha0=a0, eta=eta, beta=beta,
                          spectrum=ExactGroupBulk(st, te, a0, eta, vocabulary=voc))
    zs = [0.3 + 0.1j, 1.0 + 0.1j, 2.0 + 0.1j, 4.0 + 0.1j, -0.5 + 0j]
    s_ex = np.array([ex.stieltjes_value(z).s for z in zs])
    s_iso = np.array([iso.stieltjes_value(z).s for z in zs])
    print(f"feature spectrum, tanh/sin alpha0 = {a0}, eta = {eta}, beta = {beta}, p = n, {voc}")
    for d in ds:
        S, ks_ex, ks_iso = [], [], []
        for s in range(seeds):
            ss = seed_children(np.random.SeedSequence(s), 1)[0]
            p = int(round(beta * d))
            W0, W1 = network_first_layer(st, te, a0, eta, d, beta, seed=ss, workers=None,
                                         vocabulary=voc)
            X = np.random.default_rng(seed_children(ss, 6)[5]).standard_normal((p, d))
            Phi = np.tanh(X @ W1.T)
            lam = np.sort(np.linalg.eigvalsh(Phi.T @ Phi / p))[:p - voc.K]
            S.append([np.mean(1 / (lam - z)) for z in zs])
            eps = 1e-4 * float(lam.mean())
            ks_ex.append(_ks(lam, ex, eps))
            ks_iso.append(_ks(lam, iso, eps))
            print(f"  d = {d}, layer {s}: KS exact {ks_ex[-1]:.4f}, isotropic {ks_iso[-1]:.4f}",
                  flush=True)
        S = np.array(S)
        m, se = S.mean(0), np.abs(S.std(0, ddof=1)) / math.sqrt(seeds)
        print(f"d = {d} ({seeds} layers): KS exact {np.mean(ks_ex):.4f} +- "
              f"{np.std(ks_ex, ddof=1) / math.sqrt(seeds):.4f}, isotropic {np.mean(ks_iso):.4f}")
        for k, z in enumerate(zs):
            print(f"  s({z:.2g}): network {m[k]:.4f} +- {se[k]:.4f}, exact {s_ex[k]:.4f} "
                  f"(|rel| {abs(s_ex[k] / m[k] - 1):.4f}), isotropic {s_iso[k]:.4f} "
                  f"(|rel| {abs(s_iso[k] / m[k] - 1):.4f})")


LAZY_COMMAND = ("spectrum", "--student", "tanh", "--teacher", "sin", "--alpha0", "0.25", "--eta",
                "10", "--bulk", "exact", "--vocabulary", "1", "10")


def _lazy_rule_run(when):
    """One run of :data:`LAZY_COMMAND` in this process (``when``: "old", the rule built with
    the bulk; "new", on first use); prints a JSON line with the seconds, the rule's builds
    and the report."""
    import contextlib
    import io
    import srfsym.theory.spectral.exact_bulk_groups as g
    from srfsym.cli import main
    builds, build, init = [], g.ExactGroupBulk._build_rule, g.ExactGroupBulk.__init__

    def counted(self):
        builds.append(1)
        return build(self)

    def eager(self, *args, **kwargs):          # the constructor before the rule was lazy
        init(self, *args, **kwargs)
        self.rule
    g.ExactGroupBulk._build_rule = counted
    if when == "old":
        g.ExactGroupBulk.__init__ = eager
    buf = io.StringIO()
    t0, c0 = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(buf):
        code = main(["-q", *LAZY_COMMAND])
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                      "builds": len(builds), "code": code, "report": buf.getvalue()}))


def lazy_rule_table():
    """:data:`LAZY_COMMAND` with the first contour rule built at once (old) and on first use
    (new), each in a fresh process (no cache shared)."""
    runs = {}
    for when in ("old", "new"):
        out = subprocess.run([sys.executable, __file__, "--lazy-rule-run", when],
                             capture_output=True, text=True, check=True)
        runs[when] = json.loads(out.stdout.strip().splitlines()[-1])
    print("srfsym " + " ".join(LAZY_COMMAND))
    for when, r in runs.items():
        print(f"  {when}: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU, first contour rule built "
              f"{r['builds']} time(s), exit {r['code']}")
    same = runs["old"]["report"] == runs["new"]["report"]
    print(f"  reports identical: {same}")
    if not same:
        print(runs["old"]["report"], runs["new"]["report"], sep="\n---\n")
    print(runs["new"]["report"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[500, 1000, 2000])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--spectrum", action="store_true", help="the feature spectrum table")
    ap.add_argument("--lazy-rule", action="store_true",
                    help="the first contour rule's cost where only the spectrum is wanted")
    ap.add_argument("--lazy-rule-run", choices=["old", "new"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.lazy_rule_run:
        return _lazy_rule_run(a.lazy_rule_run)
    if a.lazy_rule:
        return lazy_rule_table()
    if a.spectrum:
        return spectrum_table(a.d, a.seeds)
    from srfsym.theory.fixed_point import solve
    from srfsym.theory.spectral.block_wishart import BlockWishartPrior
    from srfsym.theory.spectral.exact_bulk_groups import ExactGroupBulk
    from srfsym.theory.spectral.step_bulk_groups import RealisedGroupPrior, step_group_data
    t0 = time.perf_counter()
    bulk = ExactGroupBulk(*CASE, vocabulary=[1, 2])
    bulk.rule                                    # built on first use: timed here, with the bulk
    t1 = time.perf_counter()
    prior = bulk.group_prior(LAM, BETA)
    ex = prior.prior(V1HAT, V2HAT)
    t2 = time.perf_counter()
    prior.prior_units(ex)
    t3 = time.perf_counter()
    res = solve(*CASE, LAM, 1.0, BETA, vocabulary=[1, 2], bulk="exact")
    t4 = time.perf_counter()
    print(f"exact back end: contour rule {bulk.rule.nodes} nodes (self-check error "
          f"{bulk.rule.error:.1e}), built with the mapping in {t1 - t0:.2f} s; one prior "
          f"evaluation {1e3 * (t2 - t1):.1f} ms, its derivatives {1e3 * (t3 - t2):.1f} ms; one "
          f"solve (alpha = 1) {t4 - t3:.2f} s, test error {res.test_error:.6f}")
    iso = BlockWishartPrior(bulk.group_c, [0.5, 0.5], BETA, LAM).prior(V1HAT, V2HAT)
    exf = _flat(ex)
    isof = np.concatenate([iso.V1.ravel()[[0, 1, 3]], iso.V2,
                           np.diag(np.asarray(bulk.group_c) * iso.V2).ravel()[[0, 1, 3]],
                           iso.V1.ravel()[[0, 1, 3]]])
    print("quantity   exact        isotropic    " + "   ".join(
        f"d = {d}: realised/exact - 1 (z)" for d in a.d))
    rows = {}
    for d in a.d:
        got = np.array([_flat(RealisedGroupPrior(step_group_data(*CASE, d, BETA, s, [1, 2]),
                                                 LAM, BETA).prior(V1HAT, V2HAT))
                        for s in range(a.seeds)])
        mean = got.mean(0)
        sem = got.std(0, ddof=1) / math.sqrt(len(got))
        rows[d] = (mean / exf - 1, (mean - exf) / np.maximum(sem, 1e-300))
    for k, name in enumerate(NAMES):
        cells = "   ".join(f"{rows[d][0][k]:+.4f} ({rows[d][1][k]:+.1f})" + " " * 14
                           for d in a.d)
        print(f"{name:<9}  {exf[k]:+.6f}   {isof[k]:+.6f}   {cells}")


if __name__ == "__main__":
    main()
