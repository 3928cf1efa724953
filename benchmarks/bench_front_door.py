"""Benchmark: the front door (issue #27), before and after, in one run on the same machine.

"Before" is the code of the base commit (default ``d16b8e8``), unpacked with ``git archive``
into a temporary directory; "after" is this checkout.  Each measurement runs in a fresh
process per code base, the two alternating, and prints

* a warm single point: ``srfsym.solve("tanh", "sin", alpha0=20, eta=3, lam=0.1, alpha=1)``,
  median over ``--calls`` calls after 5 warm-up calls (target: <= 0.6 ms);
* the 40 x 40 ridge grid of ``benchmarks/bench_grid.py`` (alpha in [0.2, 4], lambda in
  [1e-3, 10] log-spaced; nodes chosen once, then fixed; best of 3);
* a logistic grid through ``solve_grid(loss="logistic")`` (tanh / sign, alpha0 = 2, eta = 2;
  G x G points, alpha in [0.5, 4], lambda in [0.01, 1]; 60 kappa nodes; best of 2);
* one ``solve(..., bulk="exact")`` (tanh / sin, alpha0 = 2, eta = 1; target <= 0.5 s) unless
  ``--no-exact``;

with the largest relative difference of the answers between the two code bases (the numbers
must not change).  Each figure is given as wall time and as the process's CPU time
(``time.process_time``): on a loaded machine the wall time also counts the time the
process waits for a core, the CPU time does not (the load average is printed).

    python benchmarks/bench_front_door.py [--base d16b8e8] [--calls 300] [--grid 20]
"""
import argparse
import json
import os
import pathlib
import tempfile

from oldnew import ROOT, run_child, unpack  # noqa: E402  (benchmarks/ is on the path)

CHILD = r'''
import json, statistics, sys, time, warnings
import numpy as np
import srfsym
from srfsym.theory.grid import solve_grid
what, arg = sys.argv[1], json.loads(sys.argv[2])
warnings.simplefilter("ignore")

if what == "single":
    f = lambda: srfsym.solve("tanh", "sin", alpha0=20, eta=3, lam=0.1, alpha=1.0)
    for _ in range(5):
        res = f()
    ts, cpu = [], []
    for _ in range(arg):
        c = time.process_time(); t = time.perf_counter(); res = f()
        ts.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
    out = {"seconds": (statistics.median(ts), statistics.median(cpu)),
           "values": [res.test_error, *res.state], "nodes": res.nodes}
elif what == "ridge_grid":
    A, L = np.linspace(0.2, 4, 40), np.geomspace(1e-3, 10, 40)
    K = solve_grid("tanh", "sin", 20, 3, A[:2], L[:2]).nodes
    t, g = best(lambda: solve_grid("tanh", "sin", 20, 3, A, L, nodes=K), 3)
    out = {"seconds": t, "values": g.test_error.ravel().tolist(), "nodes": K}
elif what == "logistic_grid":
    A, L = np.linspace(0.5, 4, arg), np.geomspace(0.01, 1, arg)
    t, g = best(lambda: solve_grid("tanh", "sign", 2, 2, A, L, loss="logistic", nodes=60), 2)
    out = {"seconds": t, "values": np.nan_to_num(g.classification_error).ravel().tolist(),
           "nodes": 60}
elif what == "exact":
    t, res = best(lambda: srfsym.solve("tanh", "sin", 2, 1, 0.1, 1.0, bulk="exact"), 1)
    out = {"seconds": t, "values": [res.test_error, *res.state], "nodes": res.nodes}
print(json.dumps(out))
'''


def run(code_dir, what, arg):
    return run_child(code_dir, CHILD, what, json.dumps(arg))


def rel_diff(a, b):
    import numpy as np
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) if a.size else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="d16b8e8")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--grid", type=int, default=20, help="G of the G x G logistic grid")
    ap.add_argument("--no-exact", action="store_true")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine)")
    with tempfile.TemporaryDirectory() as tmp:
        base = pathlib.Path(tmp)
        unpack(a.base, base)
        cases = [("single", a.calls, "warm single point", 1e3, "ms"),
                 ("ridge_grid", None, "40 x 40 ridge grid", 1, "s"),
                 ("logistic_grid", a.grid, f"{a.grid} x {a.grid} logistic grid", 1, "s")]
        if not a.no_exact:
            cases.append(("exact", None, "bulk='exact' solve", 1, "s"))
        print(f"{'':24s} {'before':>10s} {'after':>10s}  ratio   {'CPU before':>10s} "
              f"{'after':>10s}  ratio  max rel. diff  nodes")
        for what, arg, name, scale, unit in cases:
            before = run(base, what, arg)
            after = run(ROOT, what, arg)
            (wb, cb), (wa, ca) = before["seconds"], after["seconds"]
            print(f"{name:24s} {wb * scale:8.3g} {unit:2s}{wa * scale:8.3g} {unit:2s} "
                  f"{wb / wa:5.2f}x  {cb * scale:8.3g} {unit:2s}{ca * scale:8.3g} {unit:2s} "
                  f"{cb / ca:5.2f}x  {rel_diff(after['values'], before['values']):12.1e}  "
                  f"{before['nodes']} -> {after['nodes']}")


if __name__ == "__main__":
    main()
