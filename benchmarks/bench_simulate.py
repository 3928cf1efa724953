"""Benchmark of :func:`srfsym.simulate.simulate`: wall time and peak memory per point.

Run ``python benchmarks/bench_simulate.py`` (``--quick`` for a small run, ``--compare`` to also
time the other parallel mode and the float64 step).  Each case runs in its own subprocess;
the peak resident memory is that subprocess's ``ru_maxrss`` (plus, for ``parallel="seeds"``,
the largest worker process times the number of workers, an upper bound of their sum).

Cases (MATH.md (c), first row): tanh student, sin teacher, alpha0 = 20, eta = 3, lam = 0.1,
alpha = 1:

* one point at d = 2000 with 3 seeds (target 3-12 s),
* one seed at d = 4000 (target: peak memory under 4 GB).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

CASE = dict(student="tanh", teacher="sin", alpha0=20.0, eta=3.0, lam=0.1, alpha=1.0)


def run_case(spec: dict) -> dict:
    """Run one case in this process; return timings, memory and the measured sRF parameters."""
    from srfsym.simulate import estimate_memory_gb, simulate
    kw = dict(CASE, d=spec["d"], seeds=spec["seeds"], parallel=spec.get("parallel", "chunks"),
              step_dtype=spec.get("step_dtype", "float32"))
    workers = spec.get("workers") or len(os.sched_getaffinity(0))
    est = estimate_memory_gb("network", kw["alpha0"], [kw["alpha"]], kw["d"], 1.0, 5000,
                             kw["lam"], workers if kw["parallel"] == "chunks"
                             else min(workers, kw["seeds"]), kw["parallel"], kw["step_dtype"])
    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), os.times()
    res = simulate(**kw, workers=workers)
    wall, c1 = time.perf_counter() - t0, os.times()
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    procs = min(workers, kw["seeds"]) if kw["parallel"] == "seeds" and workers > 1 else 0
    out = {"spec": spec, "wall_s": wall,
           "cpu_s": (c1.user - c0.user) + (c1.system - c0.system)
           + (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system),
           "peak_gb": (self_kb + procs * child_kb) / 2**20, "estimate_gb": est,
           "load_before": load, "workers": workers,
           "test_error": float(res.test_error[0]), "test_error_sem": float(res.test_error_sem[0]),
           "r_emp": res.r_emp.tolist(), "c_emp": res.c_emp.tolist(),
           "gamma_emp": res.gamma_emp.tolist(), "sv": res.singular_values.tolist()}
    try:
        from srfsym.mapping import srf_mapping
        m = srf_mapping(CASE["student"], CASE["teacher"], CASE["eta"], CASE["alpha0"])
        out["mapping"] = [m.spike_strength, m.bulk_variance, m.alignment]
    except ImportError:  # pragma: no cover
        out["mapping"] = None
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
    line = (f"d={s['d']:>5} seeds={s['seeds']} {s.get('parallel', 'chunks'):>6} "
            f"{s.get('step_dtype', 'float32'):>7} workers={rep['workers']}: "
            f"wall {rep['wall_s']:6.1f} s (cpu {rep['cpu_s']:6.1f} s, load before "
            f"{rep['load_before']:.1f}), peak {rep['peak_gb']:.2f} GB "
            f"(estimate {rep['estimate_gb']:.2f} GB), test error {rep['test_error']:.5f}")
    line += (f"\n        measured r={mean(rep['r_emp']):.5f} c={mean(rep['c_emp']):.6f} "
             f"gamma={mean(rep['gamma_emp']):.5f} sv2={mean([v[1] for v in rep['sv']]):.4f}")
    if rep["mapping"]:
        r, c, g = rep["mapping"]
        line += f"   mapping r={r:.5f} c={c:.6f} gamma={g:.5f}"
    return line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (d = 500 and 1000)")
    ap.add_argument("--compare", action="store_true",
                    help="also time parallel='seeds' and step_dtype='float64' at the first size")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(json.loads(args.case))))
        return 0
    d_small, d_big = (500, 1000) if args.quick else (2000, 4000)
    specs = [{"d": d_small, "seeds": 3}, {"d": d_big, "seeds": 1}]
    if args.compare:
        specs += [{"d": d_small, "seeds": 3, "parallel": "seeds"},
                  {"d": d_small, "seeds": 3, "step_dtype": "float64"}]
    print(f"bench_simulate: tanh/sin, alpha0=20, eta=3, lam=0.1, alpha=1, n_test=5000; "
          f"{len(os.sched_getaffinity(0))} cores")
    for spec in specs:
        print(describe(spawn(spec)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
