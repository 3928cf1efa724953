"""The exact K-group prior with a readout vocabulary (``bulk="exact"``, docs/theory.md (g.5.2))
against the realised K-group prior on the network's first layers (docs/theory.md (g.4.1)), as d
grows: ``V1, V2`` (traces) and the direction sums ``F, H`` (quadratic forms along one direction,
which fluctuate by O(d^-1/2) from layer to layer) at one ``(V1^, V2^)``, with the isotropic
block-Wishart prior beside them; and the cost of the exact back end (the contour rule, one prior
evaluation, one solve).

Case: tanh/sin, alpha0 = 2, eta = 3, vocabulary {1, 2} (1/2, 1/2), lambda = 0.1, beta = 1,
``V1^ = [[1, 0.3], [0.3, 2]]``, ``V2^ = [0.2, 0.3]``.

    python benchmarks/bench_exact_vocabulary.py --d 500 1000 2000 --seeds 8
"""
import argparse
import math
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[500, 1000, 2000])
    ap.add_argument("--seeds", type=int, default=8)
    a = ap.parse_args()
    from srfsym.theory.fixed_point import solve
    from srfsym.theory.spectral.block_wishart import BlockWishartPrior
    from srfsym.theory.spectral.exact_bulk_groups import ExactGroupBulk
    from srfsym.theory.spectral.step_bulk_groups import RealisedGroupPrior, step_group_data
    t0 = time.perf_counter()
    bulk = ExactGroupBulk(*CASE, vocabulary=[1, 2])
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
