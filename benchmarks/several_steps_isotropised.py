"""The relu gap after T steps, on the same layers (docs/theory.md (p.4)): the network's ridge test
error on its realised first layer W_T, and on the same W_T with parts of its bulk redrawn.

The subspace is S = span(e_1..e_k, the letters' spike vectors) (the mean rows), with an
orthonormal basis Q.  A row w_k of letter omega is m_omega + delta_k/sqrt(d) inside S plus its own
part off S.  Three variants keep the spikes: "inside" redraws delta_k as N(0, c_perp I) (c_perp
the letter's bulk variance per direction off S), "off" redraws the part off S as Gaussian with
variance c_perp/d per direction (an isotropic, Marchenko-Pastur bulk), "both" does both: exactly
the layer the isotropic-bulk theory describes.  Beside them, the theory of docs/theory.md (p.4)
on the measured state of each layer (spike vectors, per-letter c_perp, and the measured
covariance d Cov(delta) inside S): with the isotropic bulk ("theory, measured, isotropic") and
with the measured covariance put into the bulk-linear overlaps ("theory, measured C").  Both readouts use the seed's own readout and test streams (a
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


def measured_state(W, omega, k):
    """The T-step state of a realised layer: the spike vectors and the covariance of the rows'
    own components in S (basis e_1..e_k, then the spikes' other directions), c_perp per
    letter."""
    from srfsym.step.several_steps import StepState
    p, d = W.shape
    letters = list(dict.fromkeys(omega.tolist()))
    means = np.array([W[omega == w].mean(axis=0) for w in letters])
    Q, R = np.linalg.qr(np.vstack([np.eye(d)[:k], means]).T)
    Q = Q * np.sign(np.diag(R))
    spikes, cs, covs = [], [], []
    for w in letters:
        rows = omega == w
        coords = W[rows] @ Q
        delta = coords - coords.mean(axis=0)
        off = W[rows] - coords @ Q.T
        spikes.append(coords.mean(axis=0))
        cs.append(float(np.mean(np.einsum("ij,ij->i", off, off))) * d / (d - Q.shape[1]))
        covs.append(d * delta.T @ delta / rows.sum())
    weights = [float(np.mean(omega == w)) for w in letters]
    return StepState(0, tuple(f"q{a}" for a in range(Q.shape[1])), tuple(letters),
                     tuple(weights), np.array(spikes), np.array(cs), k, np.array(covs))


def measured_theory(student, target, W, omega, k):
    """Ridge test error at alpha 1, 2 on the measured state: isotropic bulk, measured C, and
    measured C restricted to its e_1..e_k block (c_perp along the other directions, no cross
    terms: the structure of the T-step map's covariance)."""
    import dataclasses
    from srfsym.theory.channels.subspace import subspace_channel_data
    from srfsym.theory.several_steps_error import solve_subspace
    st = measured_state(W, omega, k)
    D = st.spikes.shape[1]
    block = np.array([np.block([[C[:k, :k], np.zeros((k, D - k))],
                                [np.zeros((D - k, k)), c * np.eye(D - k)]])
                      for C, c in zip(st.subspace_bulk, st.bulk_variances)])
    out = {}
    for name, iso, state in (("theory iso", True, st), ("theory C", False, st),
                             ("theory Ctheta", False,
                              dataclasses.replace(st, subspace_bulk=block))):
        sch = subspace_channel_data(student, state, target, 24, isotropic=iso)
        out[name] = [solve_subspace(sch, 0.1, a, 1.0)[0] for a in (1.0, 2.0)]
    return out


def isotropised(W, omega, k, rng, inside=True, off=False):
    """``W`` with each letter's bulk inside span(e_1..e_k, spikes) (``inside``) and/or off it
    (``off``) redrawn isotropic; and the measured ``d Cov(delta)`` along e_1..e_k per letter."""
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
        off_part = W[rows] - coords @ Q.T
        c_perp = float(np.mean(np.einsum("ij,ij->i", off_part, off_part))) * d / (d - Q.shape[1])
        new = coords.mean(axis=0) + (rng.standard_normal(delta.shape) * math.sqrt(c_perp / d)
                                     if inside else delta)
        if off:
            g = rng.standard_normal(off_part.shape) * math.sqrt(c_perp / d)
            off_part = g - (g @ Q) @ Q.T
        out[rows] = off_part + new @ Q.T
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
    variants = {"inside": dict(inside=True), "off": dict(inside=False, off=True),
                "both": dict(inside=True, off=True)}
    rows = {T: {name: [] for name in ("network", *variants)} for T in Ts}
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
            emp = {"r": 0.0, "c": 0.0, "gamma": 0.0, "singular_values": None}
            got = {"network": sim._run_seed(dict(task, first_layer=(W, emp)))["test"]}
            for name, kw in variants.items():
                W_v, covs = isotropised(W, omega, a["target"].k,
                                        np.random.default_rng(1000 + i), **kw)
                got[name] = sim._run_seed(dict(task, first_layer=(W_v, emp)))["test"]
                del W_v
            got.update(measured_theory(student, target, W, omega, a["target"].k))
            for name, v in got.items():
                rows[t].setdefault(name, []).append(v)
            cov = "; ".join(f"C={np.round(C, 2).tolist()} c={cp:.3f}" for C, cp in covs)
            print(f"seed {i} T={t}: " + ", ".join(f"{n} {np.round(v, 4).tolist()}"
                                                  for n, v in got.items()) + f" ({cov})",
                  flush=True)
        print(f"seed {i}: {time.time() - t0:.0f} s", flush=True)
    sem = lambda v: v.std(axis=0, ddof=1) / math.sqrt(len(v))  # noqa: E731
    print("| student | target | T | alpha | network | bulk inside S redrawn | bulk off S redrawn "
          "| both redrawn | network - inside (paired) | theory, measured, isotropic | theory, "
          "measured C | network - theory C (paired) | theory, measured C, theta block only |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for T in Ts:
        v = {n: np.array(x) for n, x in rows[T].items()}
        diff = v["network"] - v["inside"]
        for j, al in enumerate(a["alpha"]):
            cells = " | ".join(f"{v[n][:, j].mean():.4f} ± {sem(v[n][:, j]):.4f}"
                               for n in ("network", *variants))
            ths = " | ".join(f"{v[n][:, j].mean():.4f} ± {sem(v[n][:, j]):.4f}"
                             for n in ("theory iso", "theory C"))
            gap = v["network"][:, j] - v["theory C"][:, j]
            print(f"| {student} | {target} | {T} | {al:g} | {cells} | "
                  f"{diff[:, j].mean():+.4f} ± {sem(diff[:, j]):.4f} | {ths} | "
                  f"{gap.mean():+.4f} ± {sem(gap):.4f} | {v['theory Ctheta'][:, j].mean():.4f} ± "
                  f"{sem(v['theory Ctheta'][:, j]):.4f} |", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4],
         [int(t) for t in sys.argv[5].split(",")])
