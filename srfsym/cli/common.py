"""Shared pieces of the command line: output helpers, option groups, the CLI error."""
from __future__ import annotations

import csv
import io
import json
import sys

import mpmath
import numpy as np

DEFAULT = {"student": "tanh", "teacher": "sin", "eta": 3.0, "alpha0": 20.0, "lam": 0.1}


class CLIError(Exception):
    pass


def out(text=""):
    print(text)


def emit_json(obj):
    """Print ``obj`` as strict JSON: non-finite floats become the strings "inf", "-inf",
    "nan" (``json`` would write the invalid tokens Infinity / NaN)."""
    out(json.dumps(_finite(obj), indent=2, default=_json_default, allow_nan=False))


def _finite(o):
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    if isinstance(o, (float, np.floating)) and not np.isfinite(o):
        return str(float(o))
    return o


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, mpmath.mpf):
        return mpmath.nstr(o, mpmath.mp.dps)
    return str(o)


def emit_csv(rows):
    if not rows:
        return
    buf = io.StringIO()
    keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))]
    w = csv.DictWriter(buf, fieldnames=keys, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    sys.stdout.write(buf.getvalue())


def step(n, title):
    out("")
    out(f"Step {n}. {title}")
    out("-" * (len(title) + 9))



def add_physics(p, need_lam=True, alpha_nargs="+"):
    p.add_argument("--student", required=True, help="student activation (name or expression in x)")
    p.add_argument("--teacher", required=True, help="teacher activation")
    p.add_argument("--alpha0", type=float, required=True, help="step samples per dimension n0/d")
    p.add_argument("--eta", type=float, required=True, help="learning rate eta-tilde")
    if need_lam:
        p.add_argument("--lam", type=float, required=True, help="ridge penalty lambda (sum loss)")
    if alpha_nargs:
        p.add_argument("--alpha", type=float, nargs=alpha_nargs,
                       help="readout samples per dimension n/d")
    p.add_argument("--beta", type=float, default=1.0, help="width ratio p/d (default 1)")
    add_vocabulary(p)


def add_spectrum(p):
    p.add_argument("--spectrum", choices=["mp", "sample"], default="mp",
                   help="deterministic Marchenko-Pastur (default) or a finite-d sample")
    p.add_argument("--d", type=int, help="dimension of the sampled spectrum")
    p.add_argument("--seed", type=int, default=0)


SHARED_HELP = ("train one first layer and re-draw only the readout/test data per seed (the "
                "reference notebook's protocol; error bars then omit the first layer's "
                "fluctuations)")


def add_output(p):
    """``--json`` or ``--csv`` (one of them) for commands that print tables."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="machine-readable output")
    g.add_argument("--csv", action="store_true", help="one CSV row per point")



def add_vocabulary(p):
    """``--vocabulary OMEGA ... [--weights PI ...]``: a readout vocabulary (docs/theory.md (k))."""
    p.add_argument("--vocabulary", type=float, nargs="+", metavar="OMEGA", default=None,
                   help="readout letters omega_j before the step (a0_k = omega_k / sqrt(p)); "
                        "default: the uniform readout {1}")
    p.add_argument("--weights", type=float, nargs="+", metavar="PI", default=None,
                   help="weights pi_j of the letters (positive, summing to 1; not normalised "
                        "for you); default: equal")


def vocabulary_arg(args):
    """The checked vocabulary of ``--vocabulary/--weights`` (``None``: uniform)."""
    letters, weights = getattr(args, "vocabulary", None), getattr(args, "weights", None)
    if letters is None:
        if weights is not None:
            raise CLIError("--weights needs --vocabulary (the letters they weigh)")
        return None
    from ..vocabulary import vocabulary
    try:
        return vocabulary(letters, weights)
    except ValueError as exc:
        raise CLIError(f"--vocabulary: {exc}") from None
