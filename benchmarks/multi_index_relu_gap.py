"""Where the relu student's gap to the multi-index theory comes from (docs/theory.md (n.6)).

Per seed: the network's first layer after the step (``network_first_layer``, the streams of
``simulate``), and

* the **deformation** of the bulk inside the target subspace: the centred row update ``W1 - W0``
  (the spike, the mean row, removed) regressed on ``W0``'s columns ``1..k`` (least squares: the
  k x k matrix ``A``), the isotropic row rescaling ``a_iso`` regressed on four control columns;
* ``W1' = W1 - W0[:, :k] (A - a_iso I)``: the same layer with the deformation removed;
* the ridge readout (lambda, the uniform readout's features) on both layers, the same samples,
  test MSE on fresh points (the network);
* the theory of (n.4) on each **realised** layer: its measured spike ``r``, bulk variance ``c``,
  alignment vector ``gamma = <vhat, e_j>`` and the eigen-data of its bulk (``StepBulkSpectrum``:
  the eigenvalues of ``W Pi W^T`` and the weights of the spike and of the learned direction
  ``zeta_e`` of the teacher's orthogonal part), against the isotropic theory at the formula's map.

    PYTHONPATH=$PWD nice -n 10 python benchmarks/multi_index_relu_gap.py --d 1000 --seeds 6
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from srfsym.simulation.readout import _features_and_labels, ridge_readout
from srfsym.step.realised import network_first_layer, seed_children
from srfsym.symbolic.multi_teacher import rotation
from srfsym.symbolic.targets import multi_index_target
from srfsym.theory.multi_index import solve_multi_index, solve_multi_index_srf
from srfsym.theory.spectral.step_bulk import StepBulkSpectrum, StepEigenData

ALPHA0, ETA, LAM = 4.0, 2.0, 0.1


def deformation(W0, W1, k, controls=4):
    """``(A, a_iso)``: the update's part linear in ``W0`` inside the target subspace (k x k,
    column j: the regression of the centred update of coordinate j on W0's first k columns)
    and the isotropic rescaling on ``controls`` coordinates outside it."""
    U = (W1 - W0) - (W1 - W0).mean(axis=0)
    A = np.linalg.lstsq(W0[:, :k], U[:, :k], rcond=None)[0]
    iso = [float(W0[:, j] @ U[:, j] / (W0[:, j] @ W0[:, j])) for j in range(k, k + controls)]
    return A, float(np.mean(iso))


def learned_direction_x(vhat, gamma, e):
    """The x-space direction of the unit k-vector ``e`` in the coordinates xi of
    :mod:`srfsym.symbolic.multi_teacher` (``xi_1`` along ``(Theta^T b_1 - |gamma| vhat)/rho``,
    ``xi_j`` along ``Theta^T b_j``; Theta = the first k axes)."""
    d, k = vhat.size, gamma.size
    B = rotation(gamma)
    norm = float(np.linalg.norm(gamma))
    rho = np.sqrt(max(0.0, 1 - norm ** 2))
    cols = []
    for j in range(k):
        t = np.zeros(d)
        t[:k] = B[:, j]
        if j == 0:
            t = (t - norm * vhat) / rho
        cols.append(t)
    z = np.stack(cols, axis=1) @ e
    return z / np.linalg.norm(z)


def realised_theory(student, tg, W0, W, alpha, e0):
    """The theory of (n.4) on the realised layer ``W``: measured (r, c, gamma vector) and the
    eigen-data of its bulk along the learned direction (iterated once: e from the first solve)."""
    k = tg.k
    mean_update = W.mean(axis=0) - W0.mean(axis=0)
    vhat = mean_update / np.linalg.norm(mean_update)
    gamma = vhat[:k].copy()
    e = np.asarray(e0, float)
    for _ in range(2):
        data = StepEigenData.from_layers(W0, W, theta=learned_direction_x(vhat, gamma, e))
        res = solve_multi_index_srf(student, tg, data.r, data.c, gamma, LAM, alpha,
                                    spectrum=StepBulkSpectrum(data))
        e = np.asarray(res.learned_direction)
    return res, data, gamma


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--target", default="z1 + z1*z2")
    ap.add_argument("--student", default="relu")
    ap.add_argument("--alphas", nargs="*", type=float, default=(1.0, 4.0))
    ap.add_argument("--n-test", type=int, default=5000)
    args = ap.parse_args()
    tg = multi_index_target(args.target)
    st, k, d = args.student, tg.k, args.d
    from srfsym.symbolic.activations import activation
    sig = activation(st).numpy
    labels = tg.numpy
    iso = {a: solve_multi_index(st, tg, ALPHA0, ETA, LAM, a) for a in args.alphas}
    print(f"{args.target}, {st}, d = p = {d}, alpha0 = {ALPHA0}, eta = {ETA}, lam = {LAM}, "
          f"{args.seeds} seeds; isotropic theory: "
          + ", ".join(f"alpha {a:g}: {iso[a].test_error:.4f}" for a in args.alphas), flush=True)
    rows = {a: [] for a in args.alphas}
    for s, ss in enumerate(seed_children(np.random.SeedSequence(2030), args.seeds)):
        t0 = time.time()
        W0, W1 = network_first_layer(st, tg, ALPHA0, ETA, d, seed=ss)
        A, a_iso = deformation(W0, W1, k)
        W1m = W1.copy()
        W1m[:, :k] -= W0[:, :k] @ (A - a_iso * np.eye(k))
        A2, _ = deformation(W0, W1m, k)
        ss_test, *ss_read = seed_children(ss, 1 + len(args.alphas))
        phis = {}
        for name, W in (("step", W1), ("removed", W1m)):
            phis[name] = _features_and_labels(sig, labels, W, ss_test, args.n_test)
        for a, ssa in zip(args.alphas, ss_read):
            row = {}
            for name, W in (("step", W1), ("removed", W1m)):
                phi, y = _features_and_labels(sig, labels, W, ssa, int(a * d))
                coef = ridge_readout(phi, y, LAM)
                pt, yt = phis[name]
                row[name] = float(np.mean((yt - pt @ coef / np.sqrt(W.shape[0])) ** 2))
                res, data, gamma = realised_theory(st, tg, W0, W, a, iso[a].learned_direction)
                row[name + "_theory"] = res.test_error
                row[name + "_rcg"] = (data.r, data.c, *gamma)
            rows[a].append(row)
        print(f"seed {s}: A = {np.round(A, 3).tolist()}, a_iso = {a_iso:.3f}; after removal "
              f"A = {np.round(A2, 3).tolist()}; ({time.time() - t0:.0f} s)", flush=True)
        for a in args.alphas:
            r = rows[a][-1]
            print(f"   alpha {a:g}: network {r['step']:.4f} (theory on the layer "
                  f"{r['step_theory']:.4f}), deformation removed {r['removed']:.4f} (theory "
                  f"{r['removed_theory']:.4f}); r, c, gamma = "
                  f"{np.round(r['step_rcg'], 4).tolist()}", flush=True)
    print("\n| alpha | isotropic theory | network (+- s.e.) | theory on the realised layer | "
          "network, deformation removed | theory on that layer |")
    print("|---|---|---|---|---|---|")
    for a in args.alphas:
        cols = []
        for key in ("step", "step_theory", "removed", "removed_theory"):
            v = np.array([r[key] for r in rows[a]])
            cols.append(f"{v.mean():.4f} +- {v.std(ddof=1) / np.sqrt(len(v)):.4f}")
        print(f"| {a:g} | {iso[a].test_error:.4f} | " + " | ".join(cols) + " |")
    for a in args.alphas:
        dv = np.array([r["step"] - r["step_theory"] for r in rows[a]])
        dr = np.array([r["removed"] - r["removed_theory"] for r in rows[a]])
        print(f"alpha {a:g}: network - theory on its layer (paired) {dv.mean():+.4f} +- "
              f"{dv.std(ddof=1) / np.sqrt(len(dv)):.4f}; deformation removed "
              f"{dr.mean():+.4f} +- {dr.std(ddof=1) / np.sqrt(len(dr)):.4f}")


if __name__ == "__main__":
    main()
