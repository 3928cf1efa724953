"""Classifier outputs of ``curve`` (labels +-1, a convex readout loss, docs/theory.md (m)):
the classification error leads, beside its baselines -- the same readout without the step
(``eta = 0``: random features, the kernel regime) and the Bayes error of the labels, which no
classifier beats.  The ridge's bounds are on the test MSE of the square loss: not shown for a
classifier's classification error."""
from __future__ import annotations

import math

from .common import INPUT_COLUMNS, SRF_COLUMNS, CLIError, status

#: the columns of a classifier's rows right after the leading ones, in this order
CLASSIFICATION_COLUMNS = ("classification_error", "no_step_classification_error",
                          "bayes_classification_error")


def is_classifier(lc) -> bool:
    """Whether the learning curve ``lc`` is a classifier's (labels +-1: its results have a
    classification error)."""
    return getattr(lc.results[0], "classification_error", None) is not None


def classification_baselines(args, alphas, solve_kwargs):
    """``{"no_step": [classification error at eta = 0 per alpha], "bayes": (value, error)}``
    for the curve's readout (same loss, noise, bias, label rule, lambda, alphas)."""
    from ..symbolic.activations import activation
    from ..theory.channels.label_law import bayes_classification_error
    from ..theory.fixed_point import learning_curve, multi_index_teacher
    if multi_index_teacher(args.teacher):
        raise CLIError(f"curve with a classification loss: its baselines (the Bayes error of the "
                       f"labels) are derived for a single-index teacher, not for the multi-index "
                       f"target {args.teacher!r}; 'srfsym error' gives its classification error "
                       f"at each alpha (docs/theory.md (n.8))")
    with status("classification baselines: the same readout without the step (eta = 0), "
                "the Bayes error of the labels"):
        flat = learning_curve(args.student, args.teacher, args.alpha0, 0.0, args.lam, alphas,
                              beta=args.beta, **solve_kwargs)
        bayes = bayes_classification_error(activation(args.teacher),
                                           getattr(args, "noise", 0.0),
                                           getattr(args, "label_rule", "teacher"))
    return {"no_step": [r.classification_error for r in flat.results], "bayes": bayes}


def lead_with_classification(row, extra=None):
    """``row`` with :data:`CLASSIFICATION_COLUMNS` (those it has, and ``extra``) right after
    the leading columns.

    >>> r = {k: None for k in ("source", "student", "teacher", "alpha0", "eta", "lam",
    ...                        "alpha", "beta", "r", "c", "gamma")}
    >>> list(lead_with_classification({**r, "test_error": 2.1, "classification_error": 0.2}))[11:]
    ['classification_error', 'test_error']
    """
    lead = INPUT_COLUMNS + SRF_COLUMNS
    out = {k: row[k] for k in lead if k in row}
    merged = {**row, **(extra or {})}
    out.update({k: merged[k] for k in CLASSIFICATION_COLUMNS if k in merged})
    out.update({k: v for k, v in merged.items() if k not in out})
    return out


def classification_lines(lc, base, loss, b):
    """The text table of a classifier's curve, led by the classification error (``b``: the
    bounds, whose lower bound and kernel baseline concern the test MSE only)."""
    bayes, err = base["bayes"]
    lines = [f"classification baselines: Bayes error {bayes:.8g} (no classifier of x does "
             f"better; quadrature error {err:.1e}); 'no step': the same {loss} readout on the "
             "untrained layer (eta = 0, random features)",
             f"(the MSE columns are against the +-1 labels; on the test MSE only: lower bound "
             f"{b.lower:.8g}, kernel baseline {b.kernel:.8g}, any readout in the span)",
             f"{'alpha':>10s} {'class. error':>14s} {'no step':>14s} {'train loss':>14s} "
             f"{'test MSE':>14s} {'train MSE':>14s}"]
    for res, flat in zip(lc.results, base["no_step"]):
        lines.append(f"{res.alpha:10.4g} {res.classification_error:14.8g} {flat:14.8g} "
                     f"{res.train_loss:14.8g} {res.test_error:14.8g} {res.train_error:14.8g}")
    return lines


def classification_panel(ax, lc, base, args, sim=None, sim_label=None):
    """The classification panel of a classifier's curve: theory, the no-step readout, the Bayes
    error, the simulation's points."""
    loss = getattr(lc.results[0], "loss", "square")
    ax.plot(lc.alphas, [r.classification_error for r in lc.results], color="C4", lw=2,
            label=f"sRF theory, {loss} loss, $\\lambda$ = {args.lam:g}")
    if base is not None:
        ax.plot(lc.alphas, base["no_step"], color="C7", lw=1.5, ls="--",
                label="no step ($\\tilde\\eta$ = 0: random features)")
        bayes = base["bayes"][0]
        if math.isfinite(bayes):
            ax.axhline(bayes, ls=":", color="k", label="Bayes error of the labels")
    if sim is not None:
        ax.errorbar(sim.alphas, sim.classification_error, yerr=sim.classification_error_sem,
                    fmt="o", ms=4, capsize=3, color="C3", mec="k", label=sim_label)
    ax.set_xlabel(r"$\alpha = n/d$")
    ax.set_ylabel(r"test classification error $P(\mathrm{sign}\,\hat y \neq y)$")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    if args.log_alpha:
        ax.set_xscale("log")
