"""Several learning curves on one figure (``srfsym curve --eta 1 3 5``, ``--alpha0 ...``,
``--lam ...`` or ``--bulk isotropic step exact``): one curve per value of the one varied
parameter, each labelled, the rows carrying the varied parameter's column; and the ``curve``
subcommand itself (one curve: :mod:`srfsym.cli.theory`'s :func:`curve_results`)."""
from __future__ import annotations

import argparse

from .common import (SHARED_HELP, CLIError, add_bulk, add_output, add_physics, add_spectrum,
                     add_steps, emit_output, out, status, warn_if_isotropic_is_off)
from .readout import add_loss
from .theory import curve_alphas, curve_figure, curve_notes, curve_results, curve_text, curve_title

#: the options of ``curve`` that may take several values, and their names in labels
VARIED = {"alpha0": "$\\alpha_0$", "eta": "$\\tilde\\eta$", "lam": "$\\lambda$",
          "bulk": "bulk"}


def varied_parameter(args):
    """``(name, values)`` of the one option of :data:`VARIED` given several values, or
    ``None``; a list of one value becomes that value (``args`` is changed in place).  Two
    varied options are refused: one figure shows one family of curves.

    >>> ns = argparse.Namespace(alpha0=[20.0], eta=[1.0, 3.0], lam=[0.1], bulk=["isotropic"])
    >>> varied_parameter(ns), ns.alpha0, ns.lam
    (('eta', [1.0, 3.0]), 20.0, 0.1)
    """
    several = {}
    for name in VARIED:
        value = getattr(args, name, None)
        if isinstance(value, list):
            if len(value) > 1:
                several[name] = list(value)
            else:
                setattr(args, name, value[0])
    if len(several) > 1:
        raise CLIError("several values for " + " and ".join(f"--{n.replace('_', '-')}"
                                                             for n in several)
                       + ": one figure varies one of --alpha0, --eta, --lam, --bulk (for a "
                       "grid over two, 'srfsym sweep' draws one curve per value of the second)")
    if not several:
        return None
    name, values = next(iter(several.items()))
    if len(set(values)) < len(values):
        raise CLIError(f"--{name} lists a value twice: {' '.join(map(str, values))}")
    if name == "lam" and args.optimize_lambda:
        raise CLIError("--optimize-lambda chooses lambda at each alpha: drop the list of --lam")
    return name, values


#: the same names in text outputs
TEXT = {"alpha0": "alpha0", "eta": "eta", "lam": "lambda", "bulk": "bulk"}


def label(name, value, tex=True):
    """The label of the curve at ``value`` of ``name`` (for the figure, or ``tex=False`` for
    text).

    >>> label("eta", 3.0, tex=False), label("bulk", "exact")
    ('eta = 3', 'exact bulk')
    """
    if name == "bulk":
        return f"{value} bulk"
    return f"{(VARIED if tex else TEXT)[name]} = {value:g}"


def variant(args, name, value):
    """A copy of ``args`` for the curve at ``value`` of ``name``; for a list of bulks, ``--d``
    goes to the step bulk only (the exact and isotropic ones take none)."""
    one = argparse.Namespace(**vars(args))
    setattr(one, name, value)
    if name == "bulk" and value != "step":
        one.d = None
    return one


def several_curves(args, alphas, name, values):
    """``curve`` with one curve per value of ``name``: rows of every curve (with a ``bulk``
    column when the bulks vary), the text of each, one figure."""
    from .readout import check_readout_first
    if name == "bulk" and "step" in values and args.d is None:
        raise CLIError("--bulk step needs --d >= 2 (the dimension of the realised first "
                       "layer); the other bulks of the list take no --d")
    if name == "bulk" and args.spectrum == "sample":
        raise CLIError("--bulk step and exact are their own spectra: drop --spectrum sample")
    variants = [variant(args, name, v) for v in values]
    for one in variants:
        check_readout_first(one)      # every curve's options, before any work
    curves, sim = [], None
    for i, (one, value) in enumerate(zip(variants, values)):
        warn_if_isotropic_is_off(one)
        with status(f"curve {i + 1}/{len(values)}: {label(name, value, tex=False)}"):
            cr = curve_results(one, alphas, sim=sim)
        if name == "bulk":           # one network: the bulks are models of the same step
            sim = cr.sim
            for row in cr.rows + cr.sim_rows:
                row["bulk"] = value
        curves.append(cr)
    rows = [row for cr in curves for row in cr.rows + cr.sim_rows]
    common = set.intersection(*(set(cr.warns) for cr in curves))   # said once, unlabelled
    warns = list(dict.fromkeys(w if w in common else f"{label(name, v, tex=False)}: {w}"
                               for v, cr in zip(values, curves) for w in cr.warns))
    notes = [n for cr in curves for n in cr.notes]
    details = {"varied": name, "values": values}
    if curves[0].sim is not None:
        details["simulation"] = ([cr.sim.to_dict() for cr in curves] if name != "bulk"
                                 else curves[0].sim.to_dict())
    if not emit_output(args, rows, notes=notes, warnings=warns, details=details):
        for i, (one, value, cr) in enumerate(zip(variants, values, curves)):
            if i:
                out("")
            out(f"curve {i + 1}/{len(values)}: {label(name, value, tex=False)}")
            for line in curve_text(one, cr):
                out(line)
    if args.plot:
        from .figures import draw
        if draw(lambda: several_figure(args, name, values, variants, curves, warns),
                args.plot) and not (args.json or args.csv):
            out(f"plot written to {args.plot}")


def several_figure(args, name, values, variants, curves, warns):
    """One axes: a curve per value (colour C0, C1, ...), its simulation points in its colour,
    the bounds once when every curve shares them (a list of lambdas or bulks), else each
    curve's bounds in its colour (thin)."""
    from .figures import caption, legend_right, pyplot, sem_label
    if any(cr.base is not None for cr in curves):
        raise CLIError("several classifier curves on one figure are not drawn (the "
                       "classification panel is per curve): draw one curve per --plot")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    lines = {"upper": ("--", "upper bound on $\\min_\\lambda$ test error"),
             "lower": ("-.", "lower bound (any $\\lambda$)"),
             "kernel": (":", "kernel baseline (best linear)")}
    if any(cr.b is None for cr in curves):     # after several steps: no bounds derived
        lines = {}
    shared = {k: len({getattr(cr.b, k) for cr in curves}) == 1 for k in lines}
    for i, (value, cr) in enumerate(zip(values, curves)):
        color = f"C{i % 10}"
        # markers and thinner lines on top: curves that coincide stay visible
        ax.plot(cr.lc.alphas, cr.lc.test_error, color=color, lw=max(2.8 - 0.6 * i, 1.0),
                marker="os^vD<>ph*"[i % 10], ms=4, markevery=max(1, len(cr.lc.alphas) // 12),
                label=f"sRF theory, {label(name, value)}")
        for key, (ls, _) in lines.items():
            if not shared[key]:
                ax.axhline(getattr(cr.b, key), ls=ls, lw=0.9, color=color)
        if cr.sim is not None and (name != "bulk" or i == 0):
            sim = cr.sim
            ax.errorbar(sim.alphas, sim.test_error, yerr=sim.test_error_sem, fmt="o", ms=4,
                        capsize=3, color="k" if name == "bulk" else color, mec="k",
                        label=sem_label("network simulation" + (
                            "" if name == "bulk" else f", {label(name, value)}"),
                            args.d_sim, args.seeds))
    for key, (ls, text) in lines.items():
        if shared[key]:
            ax.axhline(getattr(curves[0].b, key), ls=ls, color="0.3", label=text)
        else:
            ax.plot([], [], ls=ls, lw=0.9, color="0.3", label=text + "\n(in each curve's colour)")
    if args.log_alpha:
        ax.set_xscale("log")
    ax.set_xlabel(r"$\alpha = n/d$")
    ax.set_ylabel(r"test error $\varepsilon_g$")
    title = curve_title(variants[0], curves[0].lc.results[0].mapping)
    parts = [p for p in title.split(", ") if not p.startswith(VARIED.get(name, "@"))]
    ax.set_title(", ".join(parts) + f"; one curve per {VARIED[name]}", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    legend_right(ax)
    notes = []
    for one, value, cr in zip(variants, values, curves):
        if one.lam is not None and not one.optimize_lambda and cr.b is not None and \
                getattr(cr.lc.results[0], "loss", "square") == "square":
            notes += [f"{label(name, value, tex=False)}: {n}"
                      for n in curve_notes(cr.lc.alphas, cr.lc.test_error, cr.b, one.lam)]
    caption(fig, notes + [w[0].upper() + w[1:] + "." if w[0].islower() else w + "."
                          for w in warns])
    return fig


def cmd_curve(args):
    varied = varied_parameter(args)      # lists of one value become that value
    alphas = curve_alphas(args)
    if args.optimize_lambda and args.simulate:
        raise CLIError("--optimize-lambda has its own lambda at each alpha: simulate one "
                       "alpha at its optimal lambda (the lam column) with 'srfsym simulate "
                       "--lam', or drop --simulate")
    if args.lam is None and not args.optimize_lambda:
        raise CLIError("give --lam, or --optimize-lambda for the curve of the test error "
                       "minimised over lambda")
    if varied is not None:               # several curves on one figure
        return several_curves(args, alphas, *varied)
    from .readout import check_readout_first
    check_readout_first(args)        # (--optimize-lambda: the ridge's square loss only)
    warn_if_isotropic_is_off(args)
    cr = curve_results(args, alphas)
    if not emit_output(args, cr.rows + cr.sim_rows, notes=cr.notes, warnings=cr.warns,
                       details=None if cr.sim is None else {"simulation": cr.sim.to_dict()}):
        for line in curve_text(args, cr):
            out(line)
    if args.plot:       # after the results: a figure that fails costs only the figure
        from .figures import draw
        if draw(lambda: curve_figure(args, cr.lc, cr.b, cr.sim, cr.warns, cr.base),
                args.plot) and not (args.json or args.csv):
            out(f"plot written to {args.plot}")


def register(sub):
    p = sub.add_parser("curve", help="learning curve (optionally plotted, with simulation)",
                       description="Test error against alpha = n/d with the bounds and the "
                       "kernel baseline (docs/theory.md (f), (l.4)); optionally a figure and "
                       "simulation points.")
    add_physics(p, need_lam=False, alpha_nargs="*", several=True)
    p.add_argument("--lam", type=float, nargs="+", help="ridge penalty lambda (sum loss; "
                   "several: one curve per value); or --optimize-lambda")
    p.add_argument("--optimize-lambda", action="store_true",
                   help="the optimally regularised curve: lambda minimising the test error at "
                   "each alpha (square loss; the upper bound bounds this curve)")
    add_steps(p)
    add_spectrum(p)
    add_loss(p)
    add_bulk(p, several=True)
    p.add_argument("--alpha-min", type=float, default=0.1, help="first alpha (without --alpha)")
    p.add_argument("--alpha-max", type=float, default=4.0, help="last alpha (without --alpha)")
    p.add_argument("--points", type=int, default=50,
                   help="number of alphas between --alpha-min and --alpha-max")
    p.add_argument("--log-alpha", action="store_true",
                   help="alphas spaced logarithmically and a logarithmic alpha axis")
    p.add_argument("--plot", help="write a figure with theory, bounds, kernel baseline; the "
                   "format follows the extension: .png, .pdf or .svg")
    p.add_argument("--simulate", action="store_true", help="overlay simulation points")
    p.add_argument("--sim-alpha", type=float, nargs="*",
                   help="alphas of the simulation (default: every sixth alpha of the curve)")
    p.add_argument("--d-sim", type=int, default=500, help="input dimension of the simulation")
    p.add_argument("--seeds", type=int, default=8, help="independent seeds of the simulation "
                   "(fewer than 5 give standard errors that are themselves unreliable)")
    p.add_argument("--shared-first-layer", action="store_true", help=SHARED_HELP)
    p.add_argument("--workers", type=int, default=None,
                   help="local processes for the curve's points (the sweeps' pool; the "
                   "alphas in contiguous pieces, the same answer as one process) (default 1)")
    add_output(p)
    p.set_defaults(func=cmd_curve)
