"""The one-step map on a multi-index target against the realised network (docs/theory.md (n)).

For each target and student: W0 (rows uniform on the sphere), one giant step on n0 = alpha0 d
samples with labels g(x_1..x_k) (srfsym.step.realised), then the spike strength (norm of the
mean row update), the alignment VECTOR (the mean update's unit direction projected on e_1..e_k)
and the top singular value and right singular vector of (W1 - W0)/sqrt(p), against
srfsym.step.multi_index.multi_index_mapping.

    PYTHONPATH=$PWD nice -n 10 python benchmarks/multi_index_step_check.py --d 2000 --seeds 2
"""
from __future__ import annotations

import argparse

import numpy as np
from scipy.sparse.linalg import svds

from srfsym.step.multi_index import multi_index_mapping
from srfsym.step.realised import network_step, sphere_rows
from srfsym.symbolic.activations import activation
from srfsym.symbolic.targets import multi_index_target

TARGETS = ("z1 + z1*z2", "tanh(2*z1) + (z2**2 - 1)/sqrt(2)", "tanh(z1 + z2/2) + sin(z2)/2")


def one_seed(st, tg, d, alpha0, eta, seed):
    ss = np.random.SeedSequence([seed, d])
    s_init, s_step = ss.spawn(2)
    W0 = sphere_rows(np.random.default_rng(s_init), d, d)
    W1 = network_step(activation(st), tg, W0, int(alpha0 * d), eta, s_step, np.float32, 1)
    D = W1 - W0
    mean = D.mean(axis=0)
    r = float(np.linalg.norm(mean))
    v = mean / r
    _u, s, vt = svds(D / np.sqrt(d), k=1)
    top = vt[0] * np.sign(vt[0] @ v)
    return r, v[:tg.k], float(s[0]), top[:tg.k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--students", nargs="*", default=("tanh", "relu"))
    args = ap.parse_args()
    alpha0, eta = 4.0, 2.0
    print(f"alpha0 = {alpha0}, eta = {eta}, d = p = {args.d}, {args.seeds} seeds", flush=True)
    print("| target | student | r theory | r measured | alignment vector theory | mean-update "
          "direction on e1..ek | top singular value | top singular vector on e1..ek |", flush=True)
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for text in TARGETS:
        tg = multi_index_target(text)
        for st in args.students:
            m = multi_index_mapping(st, tg, eta, alpha0)
            runs = [one_seed(st, tg, args.d, alpha0, eta, s) for s in range(args.seeds)]
            r = np.array([x[0] for x in runs])
            v = np.array([x[1] for x in runs])
            sv = np.array([x[2] for x in runs])
            top = np.array([x[3] for x in runs])
            g = [round(float(x), 4) for x in m.alignment_vector]
            print(f"| `{text}` | {st} | {m.spike_strength:.4f} | {r.mean():.4f} +- {r.std():.4f} |"
                  f" {g} | {np.round(v.mean(0), 4).tolist()} | {sv.mean():.4f} | "
                  f"{np.round(top.mean(0), 4).tolist()} |", flush=True)


if __name__ == "__main__":
    main()
