"""The T-step map (docs/theory.md (p.2)) against the network's realised first layers.

Reads the JSON files written by ``benchmarks/several_steps_runs.py`` from argv[1] and prints,
per configuration and step, per letter: the spike vector's components along theta_1, theta_2,
its norm and the bulk variance, measured (mean +- standard error over seeds) beside the map;
and the top singular values of (W_t - W0)/sqrt(p) beside the map's spike part
``svd(diag(sqrt(pi)) [m_omega])`` (which leaves out the bulk's push on the outliers).

    PYTHONPATH=. python benchmarks/several_steps_map_check.py /tmp/runs
"""
import glob
import json
import os
import sys

import numpy as np

from srfsym.step.several_steps import several_steps


def _ms(a):
    a = np.asarray(a, dtype=float)
    return a.mean(0), a.std(0, ddof=1) / np.sqrt(a.shape[0])


def check(path):
    res = json.load(open(path))
    voc = res["vocabulary"]["letters"] if res.get("vocabulary") else None
    m = several_steps(res["student"], res["teacher"], res["eta"], res["alpha0"],
                      steps=res["steps"], vocabulary=voc)
    st = res["step_measurements"]
    print(f"\n{os.path.basename(path)}: d = {res['d']}, {res['seeds']} seeds; map node error "
          f"{m.node_error:.1e}")
    print("| step | letter | theta1 sim | theta1 map | theta2 sim | theta2 map | |m| sim | |m| map "
          "| c sim | c map |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for t, state in enumerate(m.states[1:]):
        comp = _ms(np.array(st["spike_components"])[:, t])
        norm = _ms(np.array(st["spike_norms"])[:, t])
        bulk = _ms(np.array(st["bulk_variances"])[:, t])
        for j, w in enumerate(state.letters):
            cells = []
            for a in range(min(2, state.k)):
                cells += [f"{comp[0][j, a]:.4f}±{comp[1][j, a]:.4f}",
                          f"{state.target_components[j, a]:.4f}"]
            cells += [f"{norm[0][j]:.4f}±{norm[1][j]:.4f}", f"{state.spike_norms[j]:.4f}",
                      f"{bulk[0][j]:.4f}±{bulk[1][j]:.4f}", f"{state.bulk_variances[j]:.4f}"]
            print(f"| {t + 1} | {w:+g} | " + " | ".join(cells) + " |")
        sv = _ms(np.array(st["singular_values"])[:, t])
        print(f"|  | sv | " + ", ".join(f"{a:.4f}±{b:.4f}" for a, b in zip(*sv))
              + " | spike part: " + ", ".join(f"{v:.4f}" for v in state.spike_singular_values)
              + " | | | | | | |")
    print(f"test error alpha = 1, 2: {res['test_error']} +- {res['test_error_sem']}")


if __name__ == "__main__":
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        check(path)
