"""The relu gap after T steps, on the same layers (docs/theory.md (p.4)): the network's ridge test
error on its realised first layer W_T, and on the same W_T with the bulk *inside the subspace*
replaced by an isotropic one.

The subspace is S = span(e_1..e_k, the letters' spike vectors) (the mean rows), with an
orthonormal basis Q.  A row w_k of letter omega is m_omega + delta_k/sqrt(d) inside S plus its own
part off S; the isotropised layer keeps the spikes and the part off S and redraws delta_k as
N(0, c_perp I) (c_perp the letter's bulk variance per direction off S): exactly the layer the
isotropic-bulk theory describes.  Both readouts use the seed's own readout and test streams (a
paired comparison), and the steps are those of ``simulate(..., steps=T)`` (the same streams: the
"network" column reproduces the simulation).  Also printed: the measured covariance
d Cov(delta) along e_1..e_k against c.

    PYTHONPATH=. nice -n 10 python benchmarks/several_steps_isotropised.py 2000 8 relu z1+z1*z2 2,3
"""
import math
import sys
import time

import numpy as np

from srfsym.simulation import simulate as sim
from srfsym.simulation.first_layer import network_step, seed_children, sphere_rows
from srfsym.step import realised


def isotropised(W, omega, k, rng):
    """``W`` with each letter's bulk inside span(e_1..e_k, spikes) redrawn isotropic; and the
    measured ``d Cov(delta)`` along e_1..e_k per letter."""
    p, d = W.shape
    letters = list(dict.fromkeys(omega.tolist()))
    means = np.array([W[omega == w].mean(axis=0) for w in letters])
    A = np.vstack([np.eye(d)[:k], means]).T
    Q, _ = np.linalg.qr(A)
    out, covs = W.copy(), []
    for j, w in enumerate(letters):
        rows = omega == w
        coords = W[rows] @ Q
        delta = coords - coords.mean(axis=0)
        off = W[rows] - coords @ Q.T
        c_perp = float(np.mean(np.einsum("ij,ij->i", off, off))) * d / (d - Q.shape[1])
        new = coords.mean(axis=0) + rng.standard_normal(delta.shape) * math.sqrt(c_perp / d)
        out[rows] = off + new @ Q.T
        dz = W[rows][:, :k] - W[rows][:, :k].mean(axis=0)
        covs.append((d * dz.T @ dz / rows.sum(), c_perp))
    return out, covs


def main(d, seeds, student, target, Ts):
    a = dict(student=student, teacher=target, alpha0=2.0, eta=1.0, lam=0.1, alpha=[1.0, 2.0],
             d=d, beta=1.0, seeds=seeds, n_test=5000, model="network", r=None, c=None,
             gamma=None, seed=0, workers=1, max_memory_gb=8.0, parallel="chunks",
             step_dtype="float32", shared_first_layer=False, vocabulary=[1, -1], steps=max(Ts))
    sim._check_sizes(a)
    sim._check_model(a)
    a["readout"] = sim.check_readout("square", 0.0, False, "teacher", a["teacher_act"], 0.1)
    base = sim._base(a)
    omega = np.asarray(a["omega"], float)
    rows = {T: ([], []) for T in Ts}
    for i, ss in enumerate(seed_children(np.random.SeedSequence(0), seeds)):
        t0 = time.time()
        task = dict(base, student=a["student_act"], teacher=a["teacher_act"], seed_sequence=ss,
                    threads=1, blas_threads=1)
        W = sphere_rows(np.random.default_rng(seed_children(ss, 1)[0]), a["p"], d)
        for t, ss_t in enumerate(realised.step_streams(ss, max(Ts)), start=1):
            W = network_step(a["student_act"], a["teacher_act"], W, a["n0"], 1.0, ss_t,
                             "float32", 1, None, a["omega"])
            if t not in Ts:
                continue
            W_iso, covs = isotropised(W, omega, a["target"].k, np.random.default_rng(1000 + i))
            emp = {"r": 0.0, "c": 0.0, "gamma": 0.0, "singular_values": None}
            net = sim._run_seed(dict(task, first_layer=(W, emp)))["test"]
            iso = sim._run_seed(dict(task, first_layer=(W_iso, emp)))["test"]
            rows[t][0].append(net)
            rows[t][1].append(iso)
            cov = "; ".join(f"C={np.round(C, 2).tolist()} c={cp:.3f}" for C, cp in covs)
            print(f"seed {i} T={t}: network {np.round(net, 4).tolist()}, isotropised "
                  f"{np.round(iso, 4).tolist()} ({cov})", flush=True)
        print(f"seed {i}: {time.time() - t0:.0f} s", flush=True)
    for T in Ts:
        net, iso = (np.array(v) for v in rows[T])
        diff = net - iso
        sem = lambda v: v.std(axis=0, ddof=1) / math.sqrt(len(v))  # noqa: E731
        for j, al in enumerate(a["alpha"]):
            print(f"| {student} | {target} | {T} | {al:g} | {net[:, j].mean():.4f} ± "
                  f"{sem(net[:, j]):.4f} | {iso[:, j].mean():.4f} ± {sem(iso[:, j]):.4f} | "
                  f"{diff[:, j].mean():+.4f} ± {sem(diff[:, j]):.4f} |", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4],
         [int(t) for t in sys.argv[5].split(",")])
