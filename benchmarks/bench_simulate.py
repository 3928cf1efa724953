"""Benchmark of :func:`srfsym.simulation.simulate.simulate`: wall time and peak memory per point.

Run ``python benchmarks/bench_simulate.py`` (``--quick`` for a small run, ``--compare`` to also
time the other parallel mode and the float64 step, ``--no-baseline`` to skip the reference
protocol).  Each case runs in its own subprocess; the peak resident memory is that subprocess's
``ru_maxrss`` (plus, for ``parallel="seeds"``, the largest worker process times the number of
workers, an upper bound of their sum).

Target (issue #4): no slower than the reference notebook's protocol (about 3-12 s per point at
d = 2000) and under 4 GB at d = 4000.  Two points, alpha = 1, n_test = 5000, 3 seeds:

* ``notebook``: the reference notebook's own setting (``Simulations.ipynb`` defaults): tanh
  student, tanh teacher, alpha0 = 0.5, eta = 1, lam = 0.01;
* ``tanh_sin``: docs/theory.md (c), first row: tanh / sin, alpha0 = 20, eta = 3, lam = 0.1 (40 times
  more step samples; the expensive one).

The first call of ``simulate`` in a process also parses the activations and checks the teacher
symbolically (cached afterwards); that set-up is timed separately by a tiny warm-up call and printed
beside the wall time, which covers the step and the readouts only, like the baseline's.

For each, srfsym with independent seeds (the default: three first-layer steps), srfsym with
``shared_first_layer=True`` (one step, the notebook's protocol), and a timing baseline
:func:`reference_protocol` that restates the notebook's protocol in plain numpy, so the
comparison is made on the same machine at the same moment.  Plus one seed at d = 4000 (memory).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

CASES = {
    "notebook": dict(student="tanh", teacher="tanh", alpha0=0.5, eta=1.0, lam=0.01, alpha=1.0),
    "tanh_sin": dict(student="tanh", teacher="sin", alpha0=20.0, eta=3.0, lam=0.1, alpha=1.0),
}
N_TEST = 5000


def reference_protocol(case: dict, d: int, seeds: int, seed: int = 0) -> float:
    """Timing baseline: the protocol of the reference notebook, restated (not used by srfsym).

    Float64 throughout; Gaussian rows of W0 normalised to the unit sphere; ONE giant step on
    ``n0 = alpha0 d`` samples with the full ``n0 x p`` matrices; then per seed a fresh training
    set of ``alpha d`` and test set of ``N_TEST`` samples and a ridge readout by an explicit
    matrix inverse in the smaller of the primal/dual forms.  Returns the mean test error.

    Leaner than the notebook's cells (so a stricter baseline): ``X0 W0^T`` is computed once
    (the notebook forms it twice), no unused test set is drawn during the step, and numpy's
    ``Generator`` replaces the legacy ``np.random.randn``.  Run as they stand, the notebook's
    cells took 5.3-6.6 s (tanh/tanh) and 24-27 s (tanh/sin) per point (3 seeds, step and
    readouts, d = 2000) on the same machine.
    """
    acts = {"tanh": (np.tanh, lambda z: 1 - np.tanh(z) ** 2), "sin": (np.sin, np.cos)}
    sig, dsig = acts[case["student"]]
    teacher = acts[case["teacher"]][0]
    rng = np.random.default_rng(seed)
    p = d
    W0 = rng.standard_normal((p, d))
    W0 /= np.linalg.norm(W0, axis=1, keepdims=True)
    n0 = int(case["alpha0"] * d)
    X0 = rng.standard_normal((n0, d))
    pre = X0 @ W0.T
    resid = teacher(X0[:, 0]) - sig(pre) @ (np.ones(p) / np.sqrt(p)) / np.sqrt(p)
    G = X0.T @ (np.outer(resid, np.ones(p) / np.sqrt(p)) / np.sqrt(p) * dsig(pre)) / n0
    W1 = W0 + case["eta"] * p * G.T
    del X0, pre, G
    errors = []
    for _ in range(seeds):
        n = int(case["alpha"] * d)
        X, Xt = rng.standard_normal((n, d)), rng.standard_normal((N_TEST, d))
        F, Ft = sig(X @ W1.T) / np.sqrt(p), sig(Xt @ W1.T) / np.sqrt(p)
        y, yt = teacher(X[:, 0]), teacher(Xt[:, 0])
        if n >= p:
            a = np.linalg.inv(F.T @ F + case["lam"] * np.eye(p)) @ F.T @ y
        else:
            a = F.T @ np.linalg.inv(F @ F.T + case["lam"] * np.eye(n)) @ y
        errors.append(np.mean((yt - Ft @ a) ** 2))
    return float(np.mean(errors))


def run_case(spec: dict) -> dict:
    """Run one case in this process; return timings, memory and the measured sRF parameters."""
    case = CASES[spec["case"]]
    load = os.getloadavg()[0]
    if spec.get("impl") == "baseline":
        t0, c0 = time.perf_counter(), os.times()
        err = reference_protocol(case, spec["d"], spec["seeds"])
        wall, c1 = time.perf_counter() - t0, os.times()
        return {"spec": spec, "wall_s": wall, "cpu_s": (c1.user - c0.user) + (c1.system - c0.system),
                "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                "load_before": load, "test_error": err}
    from srfsym.simulation.simulate import estimate_memory_gb, simulate
    kw = dict(case, d=spec["d"], seeds=spec["seeds"], parallel=spec.get("parallel", "chunks"),
              step_dtype=spec.get("step_dtype", "float32"), n_test=N_TEST,
              shared_first_layer=spec.get("shared", False))
    workers = spec.get("workers") or len(os.sched_getaffinity(0))
    est = estimate_memory_gb("network", kw["alpha0"], [kw["alpha"]], kw["d"], 1.0, N_TEST,
                             kw["lam"], workers if kw["parallel"] == "chunks"
                             else min(workers, kw["seeds"]), kw["parallel"], kw["step_dtype"])
    # one-time set-up of this process (activation parsing, the derivative, the symbolic
    # check of the teacher's second moment; cached afterwards), timed on its own
    t0 = time.perf_counter()
    simulate(**dict(kw, d=50, seeds=1, n_test=50), workers=1)
    setup = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), os.times()
    res = simulate(**kw, workers=workers)
    wall, c1 = time.perf_counter() - t0, os.times()
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    procs = min(workers, kw["seeds"]) if kw["parallel"] == "seeds" and workers > 1 else 0
    out = {"spec": spec, "wall_s": wall, "setup_s": setup,
           "cpu_s": (c1.user - c0.user) + (c1.system - c0.system)
           + (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system),
           "peak_gb": (self_kb + procs * child_kb) / 2**20, "estimate_gb": est,
           "load_before": load, "workers": workers,
           "test_error": float(res.test_error[0]), "test_error_sem": float(res.test_error_sem[0]),
           "r_emp": res.r_emp.tolist(), "c_emp": res.c_emp.tolist(),
           "gamma_emp": res.gamma_emp.tolist(), "sv": res.singular_values.tolist()}
    from srfsym.step.mapping import srf_mapping
    m = srf_mapping(case["student"], case["teacher"], case["eta"], case["alpha0"])
    out["mapping"] = [m.spike_strength, m.bulk_variance, m.alignment]
    return out


def spawn(spec: dict) -> dict:
    """Run ``spec`` in a fresh interpreter and return its JSON report."""
    proc = subprocess.run([sys.executable, __file__, "--case", json.dumps(spec)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"case {spec} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def describe(rep: dict) -> str:
    s = rep["spec"]
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    if s.get("impl") == "baseline":
        label = "reference protocol (lean restatement)"
    else:
        label = (f"srfsym {'shared step' if s.get('shared') else 'independent steps'} "
                 f"{s.get('parallel', 'chunks')} {s.get('step_dtype', 'float32')}")
    line = (f"{s['case']:>8} d={s['d']:>5} seeds={s['seeds']} {label:<42}: "
            f"wall {rep['wall_s']:6.1f} s (cpu {rep['cpu_s']:6.1f} s, load before "
            f"{rep['load_before']:.1f}), peak {rep['peak_gb']:.2f} GB")
    if "setup_s" in rep:
        line += f", + {rep['setup_s']:.1f} s one-time set-up per process (not in wall)"
    if "estimate_gb" in rep:
        line += f" (estimate {rep['estimate_gb']:.2f} GB)"
    line += f", test error {rep['test_error']:.5f}"
    if rep.get("mapping"):
        r, c, g = rep["mapping"]
        line += (f"\n{'':14}measured r={mean(rep['r_emp']):.5f} c={mean(rep['c_emp']):.6f} "
                 f"gamma={mean(rep['gamma_emp']):.5f} sv2={mean([v[1] for v in rep['sv']]):.4f}"
                 f"   mapping r={r:.5f} c={c:.6f} gamma={g:.5f}")
    return line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (d = 500 and 1000)")
    ap.add_argument("--compare", action="store_true",
                    help="also time parallel='seeds' and step_dtype='float64' (tanh_sin)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the restated reference protocol")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(json.loads(args.case))))
        return 0
    d_small, d_big = (500, 1000) if args.quick else (2000, 4000)
    specs = []
    for case in CASES:
        specs += [{"case": case, "d": d_small, "seeds": 3},
                  {"case": case, "d": d_small, "seeds": 3, "shared": True}]
        if not args.no_baseline:
            specs.append({"case": case, "d": d_small, "seeds": 3, "impl": "baseline"})
    if args.compare:
        specs += [{"case": "tanh_sin", "d": d_small, "seeds": 3, "parallel": "seeds"},
                  {"case": "tanh_sin", "d": d_small, "seeds": 3, "step_dtype": "float64"}]
    specs.append({"case": "tanh_sin", "d": d_big, "seeds": 1})
    print(f"bench_simulate: alpha=1, n_test={N_TEST}, {len(os.sched_getaffinity(0))} cores; "
          + "; ".join(f"{k}: {v['student']}/{v['teacher']} alpha0={v['alpha0']:g} "
                      f"eta={v['eta']:g} lam={v['lam']:g}" for k, v in CASES.items()))
    for spec in specs:
        print(describe(spawn(spec)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
