"""The readout options of the command line (``--loss``, ``--noise``, ``--bias``,
``--label-rule``), shared by ``error``, ``curve``, ``grid`` and ``simulate``."""
from __future__ import annotations

import math

from .common import CLIError

__all__ = ["add_loss", "check_readout_first"]


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


def check_readout_first(args):
    """The readout options checked before any work (the isotropic-bulk check, the theory, a
    simulation): noise, a loss with --dps, and with --simulate what the simulated readout
    refuses."""
    kw = _loss_kwargs(args)
    if _plain_square(args):
        return
    if getattr(args, "optimize_lambda", False):
        raise CLIError("--optimize-lambda minimises the ridge's test error: use it without "
                       "--loss/--noise/--bias/--label-rule bernoulli")
    if getattr(args, "dps", None):
        raise CLIError(f"--loss {kw['loss']} (or --noise, --bias, --label-rule bernoulli) is "
                       "solved in double precision only: drop --dps (docs/theory.md (m))")
    if getattr(args, "simulate", False):
        from ..simulation.convex_readout import check_readout
        from ..symbolic.targets import teacher_object
        check_readout(kw["loss"], kw["noise"], kw["bias"], getattr(args, "label_rule", "teacher"),
                      teacher_object(args.teacher), args.lam)


def _plain_square(args):
    kw = _loss_kwargs(args)
    return (kw["loss"].strip() == "square" and kw["noise"] == 0 and not kw["bias"]
            and "label_rule" not in kw)
