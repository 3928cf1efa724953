"""Figures of a sweep table (:mod:`srfsym.sweep.run`): heat maps, curves, simulation error bars.

:func:`plot_sweep` looks at which parameters vary among the theory rows and among the
simulation rows (the seed aside):

* theory over two parameters: one curve per value of the parameter with few values (at most
  :data:`MAX_CURVES`, or a categorical one) over the other; a heat map of the test error (log
  colour scale) when both have many values, and when one of them is ``lam``, the line of the
  optimal lambda (the grid's minimum per value of the other);
* theory over one parameter: a curve;
* simulations over one parameter: the mean over seeds with the standard error of the mean
  as error bars, on the same axes as the theory curve when the theory has that parameter
  (the theory rows at the simulation's other parameter values).
"""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from .run import SweepError

__all__ = ["plot_sweep", "swept_parameters", "simulation_means", "check_plottable",
           "sweep_title"]

PARAMETERS = ("student", "teacher", "alpha0", "eta", "beta", "vocabulary", "lam", "alpha",
              "spectrum", "d",
              "model", "n_test", "shared_first_layer", "loss", "noise", "bias")
#: The readout's keys, blank in the rows of the ridge's simulation tasks: their defaults.
_READOUT_DEFAULTS = {"loss": "square", "noise": "0.0", "bias": "false"}
_LABELS = {"alpha": r"$\alpha = n/d$", "lam": r"$\lambda$", "eta": r"$\tilde\eta$",
           "alpha0": r"$\alpha_0$", "beta": r"$\beta = p/d$", "d": "$d$"}
_NUMERIC = {"alpha0", "eta", "beta", "lam", "alpha", "d", "n_test", "noise"}


def swept_parameters(rows) -> list:
    """The parameters taking more than one value among ``rows``.

    >>> swept_parameters([{**{p: "" for p in PARAMETERS}, "alpha": "1.0", "lam": "0.1"},
    ...                   {**{p: "" for p in PARAMETERS}, "alpha": "2.0", "lam": "0.1"}])
    ['alpha']
    """
    return [p for p in PARAMETERS if len({_value(r, p) for r in rows}) > 1]


def _value(r, p):
    v = r.get(p, "")
    if v == "" and p in _READOUT_DEFAULTS:
        v = _READOUT_DEFAULTS[p]
    return float(v) if p in _NUMERIC and v != "" else v


def simulation_means(rows, x):
    """Per value of ``x``: (x, mean test error, standard error over seeds, seeds).

    The standard error is ``std(ddof=1) / sqrt(seeds)`` (NaN for one seed)."""
    groups = defaultdict(list)
    for r in rows:
        groups[_value(r, x)].append(float(r["test_error"]))
    out = []
    for key in sorted(groups):
        v = np.array(groups[key])
        sem = float(np.std(v, ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
        out.append((key, float(np.mean(v)), sem, v.size))
    return out


def _axis(ax, p, which):
    getattr(ax, f"set_{which}label")(_LABELS.get(p, p))
    if p == "lam":
        getattr(ax, f"set_{which}scale")("log")


def _edges(values, log):
    """Cell edges around the grid values: midpoints (geometric on a log axis, so that no cell
    reaches below 0 and the first and last rows are whole).

    >>> _edges([0.01, 0.1, 1.0], True).round(4).tolist()
    [0.0032, 0.0316, 0.3162, 3.1623]
    """
    v = np.log(np.asarray(values, float)) if log else np.asarray(values, float)
    if v.size == 1:
        mid, half = v, np.array([0.5 if log else 0.5 * max(abs(v[0]), 1.0)])
        e = np.concatenate([mid - half, mid + half])
    else:
        inner = (v[1:] + v[:-1]) / 2
        e = np.concatenate([[v[0] - (inner[0] - v[0])], inner, [v[-1] + (v[-1] - inner[-1])]])
    return np.exp(e) if log else e


def _heat_map(ax, fig, rows, sw):
    from matplotlib.colors import LogNorm
    x, y = ("alpha", next(p for p in sw if p != "alpha")) if "alpha" in sw else sw
    xs = sorted({_value(r, x) for r in rows})
    ys = sorted({_value(r, y) for r in rows})
    Z = np.full((len(ys), len(xs)), np.nan)
    for r in rows:
        Z[ys.index(_value(r, y)), xs.index(_value(r, x))] = float(r["test_error"])
    finite = Z[np.isfinite(Z) & (Z > 0)]
    if finite.size == 0:
        raise SweepError("no finite test error among the theory rows to plot")
    if 0.0 in ys and y == "lam":      # lambda = 0 cannot sit on a log axis
        raise SweepError("a heat map over lam needs lam > 0 (log axis)")
    mesh = ax.pcolormesh(_edges(xs, x == "lam"), _edges(ys, y == "lam"),
                         np.ma.masked_invalid(Z), shading="flat",
                         norm=LogNorm(finite.min(), finite.max()), cmap="viridis")
    fig.colorbar(mesh, ax=ax, label="test error (theory)")
    _axis(ax, x, "x")
    _axis(ax, y, "y")
    if "lam" in (x, y):
        other = y if x == "lam" else x
        olist = xs if other == x else ys
        best = []
        for v in olist:
            col = [(float(r["test_error"]), _value(r, "lam")) for r in rows
                   if _value(r, other) == v and np.isfinite(float(r["test_error"]))]
            best.append(min(col)[1] if col else np.nan)
        pts = (olist, best) if other == x else (best, olist)
        from matplotlib import patheffects
        ax.plot(*pts, "w-o", ms=3, lw=1.5, mec="k", label=r"optimal $\lambda$ (grid minimum)",
                path_effects=[patheffects.Stroke(linewidth=3, foreground="k"),
                              patheffects.Normal()])
        _legend_below(ax)
    nan = int(np.isnan(Z).sum())
    ax.set_title("test error" + (f" ({nan} points not converged, blank)" if nan else ""),
                 fontsize=10)


def _curve(ax, theory, sims, x):
    if theory:
        pts = sorted((_value(r, x), float(r["test_error"])) for r in theory)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", color="C0", label="theory")
    if sims:
        means = simulation_means(sims, x)
        seeds = max(m[3] for m in means)
        d = sorted({r["d"] for r in sims})
        ax.errorbar([m[0] for m in means], [m[1] for m in means],
                    yerr=[0 if math.isnan(m[2]) else m[2] for m in means], fmt="o",
                    color="C3", capsize=3,
                    label=f"simulation, mean $\\pm$ standard error over {seeds} seed(s) "
                          f"(d = {', '.join(d)})")
    _axis(ax, x, "x")
    ax.set_ylabel("test error")
    _legend_below(ax)


#: a swept parameter with at most this many values is drawn as one curve per value (over
#: the other parameter) rather than as an axis of a heat map
MAX_CURVES = 8


def _two_parameter_panel(theory, sw):
    """How to draw theory rows over two parameters: one curve per value of a categorical
    parameter (loss, bias, student, ...) or of the number with fewer values (at most
    :data:`MAX_CURVES`) over the other, the continuous axis (alpha on a tie); a heat map when
    both have more values.

    >>> rows = [{"alpha": str(a), "eta": str(e)} for a in (0.5, 1, 2, 4) for e in (1, 3)]
    >>> _two_parameter_panel(rows, ["eta", "alpha"])
    ('curves', ('eta', 'alpha'))
    """
    cat = [p for p in sw if p not in _NUMERIC]
    if cat:
        return "curves", (cat[0], next((p for p in sw if p != cat[0]), cat[0]))
    count = {p: len({_value(r, p) for r in theory}) for p in sw}
    x = max(sw, key=lambda p: (count[p], p == "alpha"))
    by = next(p for p in sw if p != x)
    return ("curves", (by, x)) if count[by] <= MAX_CURVES else ("heat", sw)


def _curves_by(ax, theory, by, x):
    """Theory rows over ``x``, one curve per value of the parameter ``by``; over lambda, the
    optimal lambda of each curve (the grid's minimum) marked."""
    if x == by:
        raise SweepError(f"--plot cannot draw a theory table that sweeps {by} and no number")
    for k, value in enumerate(sorted({_value(r, by) for r in theory})):
        pts = sorted((_value(r, x), float(r["test_error"])) for r in theory
                     if _value(r, by) == value)
        name = (f"{_SYMBOLS.get(by, by)} = {value:g}" if isinstance(value, float)
                else f"{by} = {value}")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", ms=3, color=f"C{k % 10}",
                label=f"theory, {name}")
        finite = [p for p in pts if np.isfinite(p[1])]
        if x == "lam" and finite:
            best = min(finite, key=lambda p: p[1])
            ax.plot(*best, "*", ms=10, color=f"C{k % 10}", mec="k")
    if x == "lam":
        ax.plot([], [], "*", ms=10, color="w", mec="k", label=r"optimal $\lambda$ (grid minimum)")
    _axis(ax, x, "x")
    ax.set_ylabel("test error" + (" (MSE)" if by == "loss" else ""))
    _legend_below(ax)


def _legend_below(ax):
    """The legend under the axes and their x label: outside the data."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, frameon=False)


_SYMBOLS = {"alpha0": r"$\alpha_0$", "eta": r"$\tilde\eta$", "lam": r"$\lambda$",
            "beta": r"$\beta$", "alpha": r"$\alpha$", "d": "$d$"}


def sweep_title(rows, swept=()) -> str:
    """The pair and every parameter held fixed among ``rows`` (alpha0, eta-tilde, lambda, ...);
    a parameter taking several values is named as swept.

    >>> r = {"student": "tanh", "teacher": "sin", "alpha0": "20.0", "eta": "3.0", "lam": "0.1",
    ...      "beta": "1.0", "vocabulary": "1.0", "alpha": "1.0"}
    >>> print(sweep_title([r, {**r, "alpha": "2.0"}]))
    tanh student, sin teacher, $\\alpha_0$ = 20, $\\tilde\\eta$ = 3, $\\lambda$ = 0.1, $\\beta$ = 1
    """
    def vals(p):
        return sorted({r[p] for r in rows if r.get(p, "") != ""})
    parts = [f"{' / '.join(vals('student'))} student, {' / '.join(vals('teacher'))} teacher"]
    for p in ("alpha0", "eta", "lam", "beta"):
        v = vals(p)
        if len(v) == 1:
            parts.append(f"{_SYMBOLS[p]} = {float(v[0]):g}")
        elif v:
            parts.append(f"{_SYMBOLS[p]} swept")
    readout = {p: sorted({str(_value(r, p)) for r in rows}) for p in _READOUT_DEFAULTS}
    if readout["loss"] != ["square"]:
        parts.append(f"{readout['loss'][0]} loss" if len(readout["loss"]) == 1
                     else "loss swept")
    if readout["noise"] != ["0.0"]:
        parts.append(f"label noise {float(readout['noise'][0]):g}" if len(readout["noise"]) == 1
                     else "label noise swept")
    if "true" in readout["bias"]:
        parts.append("trained bias" if len(readout["bias"]) == 1 else "bias swept")
    voc = vals("vocabulary")
    if voc and voc != ["1.0"]:
        parts.append("readout " + (voc[0].replace(";", " weights ") if len(voc) == 1
                                   else "vocabulary swept"))
    return ", ".join(parts)


def _agreement_rows(theory, sims, x):
    """Simulation means as rows of the shared schema, beside the theory at the same x."""
    th = {_value(r, x): float(r["test_error"]) for r in theory}
    out = []
    for key, mean, sem, n in simulation_means(sims, x):
        if key in th:
            out.append({"source": "simulation", "alpha": key if x == "alpha" else
                        float(sims[0]["alpha"]), "test_error": mean, "test_error_sem": sem,
                        "theory_test_error": th[key], "seeds": n,
                        "d": min(int(r["d"]) for r in sims)})
    return out


def _matching_theory(theory, sims, x):
    """Theory rows at the simulations' values of every parameter but ``x``."""
    fixed = {}
    for p in ("student", "teacher", "alpha0", "eta", "beta", "lam", "alpha", "loss", "noise",
              "bias"):
        if p == x:
            continue
        vals = {_value(r, p) for r in sims}
        if len(vals) == 1:
            fixed[p] = vals.pop()
    return [r for r in theory if all(_value(r, p) == v for p, v in fixed.items())]


def _swept_in_spec(spec):
    """The parameters each table of a parsed sweep description sweeps (seeds aside)."""
    out = {}
    for table, t in spec.items():
        skip = {"seed", "seeds"} | ({"d"} if table == "theory" and t.get("spectrum") == ["mp"]
                                   else set())
        out[table] = [p for p in PARAMETERS if p in t and p not in skip
                      and len({repr(v) for v in t[p]}) > 1]
    return out


def check_plottable(spec):
    """Refuse, before any work, a sweep whose table :func:`plot_sweep` could not draw: more
    than two swept theory parameters, or more than one swept simulation parameter.

    >>> from srfsym.sweep.run import parse_spec
    >>> check_plottable(parse_spec({"simulation": {"student": "tanh", "teacher": "sin",
    ...     "alpha0": 20, "eta": [2, 3], "lam": 0.1, "alpha": [1, 2], "d": 40}}))
    ...     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.sweep.spec.SweepError: --plot draws one swept parameter ... this sweep varies eta, alpha: ...
    """
    for name, sw in _swept_in_spec(spec).items():
        most = ("one or two swept parameters" if name == "theory"
                else "one swept parameter (besides the seed)")
        if len(sw) > (2 if name == "theory" else 1):
            raise SweepError(f"--plot draws {most} for the {name} rows; this sweep varies "
                             f"{', '.join(sw)}: drop --plot (and plot subsets of the CSV "
                             "yourself) or sweep fewer parameters")


def row_warnings(rows) -> list:
    """The distinct warnings in the notes of a sweep table (``warning: ...``, e.g. the
    isotropic-bulk check of the theory rows), in order of first appearance."""
    import re
    found = []
    for r in rows:          # the warnings end the note (a warning may hold "; ")
        m = re.search(r"(?:^|; )warning: (.*)$", r.get("note") or "", re.S)
        if m:
            found += m.group(1).split("; warning: ")
    return list(dict.fromkeys(found))


def plot_sweep(rows, path=None):
    """Draw the sweep table ``rows`` (from :func:`srfsym.sweep.run.read_results`); save to
    ``path`` if given.  Returns the matplotlib figure.

    >>> import tempfile, os
    >>> from srfsym.sweep.run import parse_spec, run_sweep, read_results
    >>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
    ...                               "eta": 3, "lam": [0.01, 0.1, 1.0], "alpha": [0.5, 1, 2]}})
    >>> out = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = run_sweep(spec, out, workers=1, progress=False)
    >>> fig = plot_sweep(read_results(out))
    >>> [ax.get_xlabel() for ax in fig.axes][:1]
    ['$\\\\alpha = n/d$']
    """
    import matplotlib
    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if not rows:
        raise SweepError("the results table is empty: nothing to plot")
    done = [r for r in rows if r["method"] != "failed"]
    if not done:
        raise SweepError(f"every point of the sweep failed ({len(rows)} rows; the note column "
                         "says why): nothing to plot")
    theory = [r for r in done if r["source"] == "theory"]
    sims = [r for r in done if r["source"] == "simulation"]
    sw_t = swept_parameters(theory) if theory else []
    sw_s = swept_parameters(sims) if sims else []
    for name, sw, most in (("theory", sw_t, "one or two swept parameters"),
                           ("simulation", sw_s, "one swept parameter (besides the seed)")):
        if len(sw) > (2 if name == "theory" else 1):
            raise SweepError(f"--plot draws {most} for the {name} rows; this table sweeps "
                             f"{', '.join(sw)}: plot subsets of the CSV yourself")
    panels = []
    if len(sw_t) == 2:
        panels.append(_two_parameter_panel(theory, sw_t))
    x_sim = sw_s[0] if sw_s else (sw_t[0] if len(sw_t) == 1 else "alpha")
    if sims:
        panels.append(("curve", x_sim))
    if len(sw_t) <= 1 and theory and (not sims or (sw_t and sw_t[0] != x_sim)):
        panels.append(("curve-theory", sw_t[0] if sw_t else "alpha"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.6), squeeze=False)
    warns = []
    for ax, (kind, what) in zip(axes[0], panels):
        if kind == "heat":
            _heat_map(ax, fig, theory, what)
        elif kind == "curves":
            _curves_by(ax, theory, *what)
        elif kind == "curve":
            matching = _matching_theory(theory, sims, what)
            _curve(ax, matching, sims, what)
            held = [f"{_SYMBOLS[p]} = {_value(sims[0], p):g}" for p in ("alpha0", "eta", "lam")
                    if p in sw_t and len({r[p] for r in sims}) == 1]
            if held:
                ax.set_title("simulations and theory at " + ", ".join(held), fontsize=10)
            from .agreement import agreement_warnings
            off = any("isotropic bulk" in w for w in row_warnings(matching))
            warns = agreement_warnings(_agreement_rows(matching, sims, what), (
                "the theory uses the isotropic bulk, which is off at this step (see the "
                "warning below): the gap is the model's, not finite size; compare with "
                "bulk = 'exact'") if off else None)
        else:
            _curve(ax, theory, [], what)
    fig.suptitle(sweep_title(rows), fontsize=10)
    fig.tight_layout()
    warns = warns + row_warnings(rows)
    if len(done) < len(rows):
        warns.append(f"{len(rows) - len(done)} of {len(rows)} points failed and are not drawn "
                     "(the note column of the table says why)")
    if warns:
        import textwrap
        fig.text(0.01, -0.02, "\n".join(textwrap.fill(w[0].upper() + w[1:] + ".", 110)
                                         for w in warns), ha="left", va="top", fontsize=8)
        fig._srfsym_caption = True        # the caption carries the warnings
    if path is not None:
        _save(fig, path)
        plt.close(fig)
    return fig


def _save(fig, path):
    """Save under a temporary name in the same folder, then rename: never a partial file."""
    import os

    from ..core.files import atomic_write
    atomic_write(path, lambda tmp: fig.savefig(
        tmp, dpi=120, bbox_inches="tight",
        format=os.path.splitext(str(path))[1][1:].lower() or "png"))
