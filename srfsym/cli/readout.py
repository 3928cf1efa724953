"""The readout options of the command line (``--loss``, ``--noise``, ``--bias``,
``--label-rule``), shared by ``error``, ``curve``, ``grid`` and ``simulate``."""
from __future__ import annotations

import math

from .common import CLIError

__all__ = ["add_loss"]


def add_loss(p):
    """``--loss``, ``--noise``, ``--bias``: the readout loss, label noise and a trained bias
    (docs/theory.md (m))."""
    p.add_argument("--loss", default="square",
                   help="readout loss: square (default, the ridge), logistic, hinge, or an "
                   "expression in y and yhat convex in yhat, e.g. 'log(1 + exp(-y*yhat))' "
                   "(objective: sum of the loss + lambda ||a||^2; logistic and hinge need "
                   "labels +-1: the teacher sign, or --label-rule bernoulli)")
    p.add_argument("--noise", type=float, default=0.0,
                   help="label noise: variance of a Gaussian added to real labels, or of a "
                   "probit flip sign(<theta*, x> + sqrt(noise) xi) for the teacher sign")
    p.add_argument("--bias", action="store_true",
                   help="train an unpenalised output bias b (yhat = a.phi/sqrt(p) + b)")
    p.add_argument("--label-rule", choices=["teacher", "bernoulli"], default="teacher",
                   help="teacher (default): labels teacher(<theta*, x>) (+ noise); bernoulli: "
                   "labels +-1 with P(y = 1) = (1 + teacher(h))/2, h = <theta*, x> + "
                   "sqrt(noise) xi (the teacher tanh: the logistic-noise rule; docs/theory.md "
                   "(m.6))")


def _loss_kwargs(args):
    noise = getattr(args, "noise", 0.0)
    if not (math.isfinite(noise) and noise >= 0):
        raise CLIError(f"--noise is a variance: it must be a finite number >= 0, got {noise}")
    kw = {"loss": getattr(args, "loss", "square"), "noise": getattr(args, "noise", 0.0),
          "bias": getattr(args, "bias", False)}
    if getattr(args, "label_rule", "teacher") != "teacher":
        kw["label_rule"] = args.label_rule
    return kw
