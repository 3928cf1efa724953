"""The test error after T steps: theory (docs/theory.md (p.4)) beside the network.

Reads the JSON files of ``benchmarks/several_steps_runs.py`` from argv[1]; for each prints the
network's test error (mean +- standard error over seeds) at alpha = 1, 2 beside the theory
with the isotropic bulk and with the map's bulk covariance inside the subspace put into the
bulk-linear overlaps (``isotropic=False``), and the readout rule's node error.

    PYTHONPATH=. python benchmarks/several_steps_error_table.py /tmp/runs
"""
import glob
import json
import os
import sys
import warnings

from srfsym.theory.several_steps_error import several_steps_error


def main(folder):
    warnings.simplefilter("ignore")
    print("| student | readout | target | T | alpha | network (d, seeds) | theory, isotropic bulk "
          "| (sim - th)/s.e. | theory, subspace bulk |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        res = json.load(open(path))
        voc = res["vocabulary"]["letters"] if res.get("vocabulary") else None
        for j, a in enumerate(res["alphas"]):
            iso = several_steps_error(res["student"], res["teacher"], res["eta"], res["alpha0"],
                                      res.get("steps", 1), res["lam"], a, vocabulary=voc)
            sub = several_steps_error(res["student"], res["teacher"], res["eta"], res["alpha0"],
                                      res.get("steps", 1), res["lam"], a, vocabulary=voc,
                                      isotropic=False)
            sim, sem = res["test_error"][j], res["test_error_sem"][j]
            name = "uniform" if voc is None else "{+1, -1}"
            print(f"| {res['student']} | {name} | {res['teacher']} | {res.get('steps', 1)} | {a:g} "
                  f"| {sim:.4f} ± {sem:.4f} ({res['d']}, {res['seeds']}) | {iso.test_error:.4f} "
                  f"(node {iso.node_error:.0e}) | {(sim - iso.test_error) / sem:+.1f} "
                  f"| {sub.test_error:.4f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
