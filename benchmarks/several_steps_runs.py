"""Network runs for docs/theory.md (p): T giant steps then the ridge readout, saved as JSON.

Each configuration ``student:target:letters:T`` (letters ``pm`` = {+1, -1}, ``u`` = uniform)
is simulated at d = p (argv[1]), alpha0 = 2, eta = 1, lambda = 0.1, alpha = 1 and 2, with
argv[2] seeds, and written to argv[3]/<student>_<letters>_T<T>_<target>.json
(:meth:`SimulationResult.to_dict`).

    PYTHONPATH=. python benchmarks/several_steps_runs.py 2000 8 /tmp/runs relu:z1+z1*z2:pm:2
"""
import json
import os
import sys
import time

from srfsym.simulation.simulate import simulate


def run(d, seeds, outdir, spec):
    student, target, letters, T = spec.split(":")
    voc = [1, -1] if letters == "pm" else None
    name = f"{student}_{letters}_T{T}_{target.replace('*', '').replace('+', 'p')}.json"
    path = os.path.join(outdir, name)
    if os.path.exists(path):
        return
    t0 = time.time()
    res = simulate(student, target, 2.0, 1.0, 0.1, [1.0, 2.0], d=d, seeds=seeds, n_test=5000,
                   workers=1, vocabulary=voc, steps=int(T))
    with open(path, "w") as fh:
        json.dump(res.to_dict(), fh)
    print(f"{spec}: {time.time() - t0:.0f} s, test error {res.test_error}", flush=True)


if __name__ == "__main__":
    d, seeds, outdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    os.makedirs(outdir, exist_ok=True)
    for spec in sys.argv[4:]:
        run(d, seeds, outdir, spec)
