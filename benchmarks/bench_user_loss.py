"""Benchmark: the proximal step of user losses (docs/theory.md (m.2), (m.5)), before and after,
in one run on the same machine.

"Before" is the code of a base commit (default ``b1de1bf``: a safeguarded Newton iteration
that passes over the whole array until the last entry converges, a bisection when a step fails
to halve; ``(y - yhat)**64`` took ~65 passes per proximal step), unpacked with ``git archive``
into a temporary directory; "after" is this checkout (Newton or, where ``V l'`` and
``omega - x`` differ by more than a factor e, the Newton step of their log ratio; entries leave
the arrays as they converge; integer powers by repeated squaring).  Each measurement runs in a
fresh process per code base and prints wall and CPU time (``time.process_time``; on a loaded
machine the wall time also counts waiting for a core) and the largest difference of the
answers between the two code bases (the numbers must not change): relative for a solve,
``|after - before| / max(|before|, 1)`` for the proximal step's P, f, g.

* **prox**: one proximal step ``loss(spec).prox(y, omega, V)`` on 480 000 entries (the size of
  the real-label channel at 120 kappa nodes: 78 live nodes x 192 z x 32 xi), seeded draws
  ``y = sin(1.5 z)``, ``omega = 0.4 u`` + 0.1 ``z``, ``V`` log-uniform in ``[1e-4, 4]``;
  best of 3 (answers: P, f, g);
* **solve**: ``srfsym.solve`` at the CLI point of the issue, ``tanh`` student, ``sin``
  teacher, ``alpha0 = 2, eta = 1, lambda = 0.1, alpha = 1`` (answers: test and training error,
  training loss, the order parameters); the logistic losses on the ``sign`` teacher at
  ``alpha0 = 2, eta = 2, lambda = 0.05, alpha = 2`` (the L1 point of the theory page).

Losses: ``(y-yhat)**64`` (target: the solve under 15 s; before ~190 s on an idle machine),
``(y-yhat)**4``, the cosh-type ``exp(yhat-y) + exp(y-yhat)``, ``log(cosh(y-yhat))`` (generated
as ``LogCosh``, ``tanh``, ``sech^2`` since the overflow-safe forms), the built-in ``logistic``
and the same written as a user loss ``log(1 + exp(-y*yhat))``.

``--base 93ab81a --only solve`` measures the real-label channel's warm start (the proximal step
of each sweep started from the previous sweep's P, as with labels +-1) and the overflow-safe
forms together: the non-margin solves run on real labels (``sin`` teacher).

    python benchmarks/bench_user_loss.py [--base b1de1bf] [--only prox|solve] [--skip-base-64]
"""
import argparse
import os
import pathlib
import tempfile

from oldnew import ROOT, run_child, unpack  # noqa: E402  (benchmarks/ is on the path)
LOSSES = ["(y-yhat)**64", "(y-yhat)**4", "exp(yhat-y) + exp(y-yhat)", "log(cosh(y-yhat))",
          "logistic", "log(1 + exp(-y*yhat))"]
MARGIN = ("logistic", "log(1 + exp(-y*yhat))")

CHILD = r'''
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
what, spec = sys.argv[1], sys.argv[2]
margin = spec in ("logistic", "log(1 + exp(-y*yhat))")

if what == "prox":
    from srfsym.theory.channels.losses import loss
    lo = loss(spec)
    rng = np.random.default_rng(0)
    n = 78 * 192 * 32
    z, u = rng.normal(size=n), rng.normal(size=n)
    y = np.sign(z) if margin else np.sin(1.5 * z)
    omega, V = 0.4 * u + 0.1 * z, 10.0 ** rng.uniform(-4, np.log10(4), n)
    lo.prox(y[:10], omega[:10], V[:10])                     # generate the code first
    t, (P, f, g) = best(lambda: lo.prox(y, omega, V), 3)
    out = {"seconds": t, "values": np.concatenate([P, f, g]).tolist()}
else:
    import srfsym
    point = ("tanh", "sign", 2, 2, 0.05, 2.0) if margin else ("tanh", "sin", 2, 1, 0.1, 1.0)
    run = lambda: srfsym.solve(*point, loss=spec)
    # warm the caches (mapping, rules, the disk cache of closed forms, keyed by the sources:
    # the first process after an edit of srfsym/symbolic derives them again) at the same point
    srfsym.solve(*point)
    t, res = best(run, 1)
    out = {"seconds": t, "values": [res.test_error, res.train_error, res.train_loss,
                                     *res.state]}
print(json.dumps(out))
'''


def run(code_dir, what, spec):
    return run_child(code_dir, CHILD, what, spec)


def rel_diff(a, b, floor):
    """max |a - b| / max(|b|, floor)."""
    import numpy as np
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), floor))) if a.size else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="b1de1bf")
    ap.add_argument("--only", choices=("prox", "solve"))
    ap.add_argument("--skip-base-64", action="store_true",
                    help="do not solve (y-yhat)**64 with the base code (~190 s)")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine); before = {a.base}")
    print(f"{'':34s} {'before':>9s} {'after':>9s}  ratio  {'CPU before':>10s} {'after':>9s}"
          f"  ratio  max rel. diff")
    floor = {"prox": 1.0, "solve": 1e-300}   # prox: |diff| / max(|b|, 1); solve: relative
    with tempfile.TemporaryDirectory() as tmp:
        base = pathlib.Path(tmp)
        unpack(a.base, base)
        for what in ("prox", "solve"):
            if a.only and what != a.only:
                continue
            for spec in LOSSES:
                name = f"{what} {spec}"
                after = run(ROOT, what, spec)
                wa, ca = after["seconds"]
                if what == "solve" and spec == "(y-yhat)**64" and a.skip_base_64:
                    print(f"{name:34s} {'-':>9s} {wa:8.3g}s  {'':5s}  {'-':>10s} {ca:8.3g}s")
                    continue
                before = run(base, what, spec)
                wb, cb = before["seconds"]
                diff = rel_diff(after["values"], before["values"], floor[what])
                print(f"{name:34s} {wb:8.3g}s {wa:8.3g}s {wb / wa:5.1f}x  {cb:9.3g}s {ca:8.3g}s "
                      f"{cb / ca:5.1f}x  {diff:12.1e}", flush=True)
    print("target: the (y-yhat)**64 solve under 15 s")


if __name__ == "__main__":
    main()
