"""``srfsym error``, ``bounds``, ``curve``: the fixed point, its bounds, learning curves."""
from __future__ import annotations

import contextlib

import mpmath
import numpy as np

from .classification import (classification_baselines, classification_lines,
                             classification_panel, is_classifier, lead_with_classification)
from .readout import _loss_kwargs, _plain_square, add_loss, check_readout_first  # noqa: F401 (re-exported)
from .simulation import agreement_warnings, model_caveat, simulation_rows, theory_label

#: most alphas of one ``curve`` (each a fixed point kept in memory); ``sweep`` takes more
MAX_POINTS = 10_000
from .common import (CLIError, add_bulk, add_output, add_physics, add_spectrum,
                     add_steps, add_vocabulary, emit_output, out, status, table_row, vocabulary_arg,
                     warn_if_isotropic_is_off)


def _solve_kwargs(args):
    kw = {"spectrum": args.spectrum, "vocabulary": vocabulary_arg(args)}
    if getattr(args, "steps", 1) != 1:
        kw["steps"] = args.steps
    if not _plain_square(args):
        kw.update(_loss_kwargs(args))
    if args.spectrum == "sample":
        if args.d is None:
            raise CLIError("--spectrum sample needs --d (the dimension of the sampled matrix)")
        if args.d < 2:
            raise CLIError(f"--d must be an integer >= 2 for --spectrum sample, got {args.d}")
        kw.update(d=args.d, seed=args.seed)
    if getattr(args, "bulk", "isotropic") == "step":
        if not (args.alpha0 and args.eta):        # the realised step has no spike direction
            raise CLIError(f"--bulk step needs a step: got "
                           + ("--eta 0" if not args.eta else "--alpha0 0")
                           + " (W1 = W0, no spike direction); the isotropic bulk is then exact")
        if args.spectrum == "sample":
            raise CLIError("--bulk step is its own finite-d spectrum: drop --spectrum sample")
        if args.d is None or args.d < 2:
            raise CLIError("--bulk step needs --d >= 2 (the dimension of the realised first layer)")
        kw.update(bulk="step", d=args.d, seed=args.seed)
    if getattr(args, "bulk", "isotropic") == "exact":
        if args.spectrum == "sample":
            raise CLIError("--bulk exact is its own (d -> infinity) spectrum: drop --spectrum "
                           "sample")
        if getattr(args, "dps", None):
            raise CLIError("--bulk exact is solved in double precision only: drop --dps")
        if args.d is not None:
            raise CLIError(f"--bulk exact is the d -> infinity law: it takes no --d (got "
                           f"{args.d}; --bulk step realises the first layer at dimension d)")
        kw.update(bulk="exact")
    return kw


def _theory_row(args, res, **extra):
    """A fixed-point result in the common output schema (cli/common.py)."""
    m = res.mapping
    if getattr(args, "steps", 1) > 1:
        extra = dict(steps=args.steps, **extra)
    return table_row("theory", m.student.name, m.teacher.name, alpha0=args.alpha0, eta=args.eta,
                     **res.to_dict(getattr(args, "dps", None) or 30), **extra)


def _solve_one(args, a, start, optimal_lambda, solve):
    if args.optimize_lambda:
        if not _plain_square(args):
            raise CLIError("--optimize-lambda minimises the ridge's test error: use it without "
                           "--loss/--noise/--bias")
        lam, res = optimal_lambda(args.student, args.teacher, args.alpha0, args.eta, a,
                                  beta=args.beta, **_solve_kwargs(args))
        res.notes.append(f"lambda minimising the test error: {lam:.6g}")
        return res
    return solve(args.student, args.teacher, args.alpha0, args.eta, args.lam, a,
                 beta=args.beta, dps=args.dps, start=start, **_solve_kwargs(args))


def cmd_error(args):
    from ..theory.fixed_point import optimal_lambda, solve
    rows = []
    results = []
    start = None
    if args.lam is None and not args.optimize_lambda:
        raise CLIError("give --lam, or --optimize-lambda to minimise the test error over lambda")
    where = (f" on a sampled d = {args.d} spectrum (W W^T diagonalised, docs/theory.md (h))"
             if args.spectrum == "sample" else "")
    if args.bulk == "step":
        where = f" on the step bulk realised at d = {args.d} (docs/theory.md (g.4))"
    elif args.bulk == "exact":
        where = " on the exact law of the step's bulk (docs/theory.md (g.5))"
    check_readout_first(args)
    warn_if_isotropic_is_off(args)
    slow = args.spectrum == "sample" or args.dps or args.optimize_lambda \
        or args.bulk != "isotropic"
    for a in args.alpha:
        with (status(f"fixed point at alpha = {a:g}" + where
                     + (", minimising over lambda" if args.optimize_lambda else "")
                     + (f", then in mpmath at {args.dps} digits" if args.dps else ""))
              if slow else contextlib.nullcontext()):
            res = _solve_one(args, a, start, optimal_lambda, solve)
        start = res.state
        results.append(res)
        rows.append(_theory_row(args, res))
    if not emit_output(args, rows, notes=[n for res in results for n in res.notes]):
        out(run_header(results[0].mapping, vocabulary_arg(args), bulk=args.bulk))
        for res in results:
            out(str(res))
            for note in res.notes:
                out(f"  note: {note}")
            if res.mp_test_error is not None:
                out(f"  test error ({args.dps} digits) = {mpmath.nstr(res.mp_test_error, args.dps)}")


def run_header(m, voc, digits=10, bulk="isotropic"):
    """The sRF parameters of a run (:func:`srf_header`), or after several steps the T-step
    map's spike vectors and bulk variances per letter (docs/theory.md (p.2))."""
    return str(m) if getattr(m, "steps", 1) > 1 else srf_header(m, voc, digits, bulk)


def srf_header(m, voc, digits=10, bulk="isotropic"):
    """The sRF parameters of a run, with the readout vocabulary's per-letter values when it is
    not the uniform one (docs/theory.md (k)); on the step bulk (``bulk="step"``) the mapping's,
    which its channel does not take (it takes the realised layer's, named in the result's
    note, docs/theory.md (g.4))."""
    text = (f"sRF parameters: r = {m.r:.{digits}g}, c = {m.c:.{digits}g}, "
            f"gamma = {m.gamma:.{digits}g}")
    if bulk == "step":
        text = text.replace("sRF parameters:", "sRF parameters of the mapping (docs/theory.md "
                            "(c); not used on the step bulk, whose channel takes the realised "
                            "layer's measured values, see the note):")
        return text + ("" if voc is None or voc.is_uniform else f"\nreadout {voc}")
    if voc is None or voc.is_uniform:
        return text + " (uniform readout)"
    rj = ", ".join(f"{v:.6g}" for v in voc.group_spike_strengths(m.r))
    cj = ", ".join(f"{v:.6g}" for v in voc.group_bulk_variances(m.c))
    return (f"{text} (letter omega = 1)\nreadout {voc}\n  per letter: r_j = r omega_j = {rj}; "
            f"c_j = 1 + omega_j^2 (c - 1) = {cj}")


def _rename_bounds(d):
    """Bounds keys in the shared schema's names (upper_bound, lower_bound, kernel_baseline)."""
    from ..theory.bounds import OUTPUT_NAMES as names
    out = {names.get(k, k): v for k, v in d.items()}
    if isinstance(out.get("decimal"), dict):
        out["decimal"] = {names.get(k, k): v for k, v in out["decimal"].items()}
    return out


def _zero_below_error(row, b):
    """A bound below its own error estimate (the last node change) is 0 in the row, its
    decimal "0": the digits would be round-off."""
    from ..core.values import below_error
    for key, attr in (("upper_bound", "upper"), ("lower_bound", "lower"),
                      ("spike_span_projection", "spike_span")):
        if below_error(getattr(b, attr), b.node_error):
            row[key] = 0.0
            if isinstance(row.get("decimal"), dict) and key in row["decimal"]:
                row["decimal"][key] = "0"
    return row


def bounds_text(b, dps=None):
    """The text report of :class:`~srfsym.theory.bounds.Bounds`; a value below its error
    estimate prints as ``0 (|x| < e)``."""
    from ..core.values import shown_with_error
    voc = ("" if b.vocabulary is None or b.vocabulary.is_uniform else f" with the {b.vocabulary}")
    err = b.node_error

    def show(x, digits=10):
        return shown_with_error(x, err, digits)
    lines = [f"bounds{voc} at r = {b.r:.6g}, c = {b.c:.6g}, gamma = {b.gamma:.6g}: "
             f"lower = {show(b.lower)}, upper = {show(b.upper)}, kernel baseline = "
             f"{show(b.kernel)}  [{b.precision}, {b.nodes} kappa nodes"
             + ("" if err is None else f", last node change {err:.1e}") + "]"]
    if b.vocabulary is not None and not b.vocabulary.is_uniform:
        lines.append(f"  groups: r_j = "
                     f"{', '.join(f'{v:.8g}' for v in b.vocabulary.group_spike_strengths(b.r))}"
                     f"; c_j = "
                     f"{', '.join(f'{v:.8g}' for v in b.vocabulary.group_bulk_variances(b.c))}")
    lines.append(f"  spike-only projection on span{{mu0, kappa mu1}} = {show(b.spike_span)}"
                 + ("" if b.gamma == 1 else "  (not a bound at gamma < 1)"))
    from ..theory.bounds import OUTPUT_NAMES as names
    for k, v in (b.mp_values or {}).items():
        lines.append(f"  {names.get(k, k):22s} = {show(v, dps)}   [{dps} digits]")
    return "\n".join(lines)


def _bounds_mode(args):
    """'fixed' (--r --c [--gamma]), 'eta' (--alpha0 --eta) or 'optimize' (--alpha0
    --optimize-eta); anything else is a clear error."""
    srf = [n for n in ("r", "c") if getattr(args, n) is not None]
    step = [n for n in ("alpha0", "eta") if getattr(args, n) is not None]
    if args.gamma is not None and args.eta is not None:
        raise CLIError("--gamma fixes the alignment of given sRF parameters or of --optimize-eta; "
                       "with --eta the mapping gives gamma")
    if srf and (step or args.optimize_eta):
        raise CLIError("give either sRF parameters (--r --c [--gamma]) or a step (--alpha0 with "
                       "--eta or --optimize-eta), not both")
    if srf:
        if args.r is None or args.c is None:
            raise CLIError("fixed sRF parameters need both --r and --c (--gamma defaults to 1)")
        return "fixed"
    if args.alpha0 is None:
        raise CLIError("give --r --c [--gamma], or --alpha0 with --eta or --optimize-eta")
    if args.optimize_eta == (args.eta is not None):
        raise CLIError("with --alpha0 give exactly one of --eta and --optimize-eta")
    return "optimize" if args.optimize_eta else "eta"


def cmd_bounds(args):
    from ..theory.bounds import bounds, optimal_learning_rate_bounds
    from ..step.mapping import srf_mapping
    if args.steps > 1:
        raise CLIError(f"--steps {args.steps}: the bounds of docs/theory.md (l) are those of the "
                       "one-step sRF model (one rank-one spike with a scalar alignment gamma); "
                       "after several steps the features carry a spike vector per letter in a "
                       "subspace and their bounds are not derived: use 'srfsym error' or "
                       "'srfsym curve' with --steps (docs/theory.md (p.4))")
    mode = _bounds_mode(args)
    voc = vocabulary_arg(args)
    if mode == "optimize" and args.bias:
        raise CLIError("--bias is not available with --optimize-eta (give --eta, or --r --c)")
    if mode == "optimize":
        with status(f"minimising the bounds over eta in (0, {args.eta_max:g}]"
                    + (f", then at {args.dps} digits" if args.dps else "")):
            opt = optimal_learning_rate_bounds(args.student, args.teacher, args.alpha0,
                                               eta_max=args.eta_max, vocabulary=voc,
                                               gamma=args.gamma, dps=args.dps)
        row = table_row("bounds", args.student, args.teacher, **_rename_bounds(opt.to_dict()))
        if not emit_output(args, [row], notes=opt.notes):
            out(str(opt))
            for key, b in (("upper", opt.at_upper), ("lower", opt.at_lower)):
                out(f"  at eta_{key}: r = {b.r:.8g}, c = {b.c:.8g}, gamma = {b.gamma:.8g}")
            out(f"  kernel baseline = {opt.at_upper.kernel:.10g}")
            for note in opt.notes:
                out(f"  note: {note}")
        return
    head = {}
    steps = 2 if mode == "eta" and args.dps else 1
    if mode == "eta":
        with (status(f"step 1/{steps}: the mapping (r, c, gamma) at {args.dps + 10} digits "
                     "(Hermite constants, quadrature where no closed form)")
              if args.dps else contextlib.nullcontext()):
            m = srf_mapping(args.student, args.teacher, args.eta, args.alpha0)
            if args.dps is None:
                r, c, gamma = m.r, m.c, m.gamma
            else:   # the mapping at the requested precision, not its double rounding
                r, c, gamma = (v.decimal(args.dps + 10) for v in m.values().values())
        head.update(alpha0=args.alpha0, eta=args.eta)
    else:
        r, c, gamma = args.r, args.c, 1.0 if args.gamma is None else args.gamma
    with (status(("" if steps == 1 else f"step {steps}/{steps}: ")
                 + f"bounds at {args.dps} digits (mpmath kappa quadrature, node count "
                 "raised until two counts agree)")
          if args.dps else contextlib.nullcontext()):
        b = bounds(args.student, args.teacher, r, c, gamma, dps=args.dps, vocabulary=voc,
                   bias=args.bias)
    row = _zero_below_error(table_row("bounds", args.student, args.teacher, **head,
                                      **_rename_bounds(b.to_dict(args.dps or 30))), b)
    if not emit_output(args, [row], notes=b.notes):
        out(bounds_text(b, args.dps))
        for note in b.notes:
            out(f"  note: {note}")


def curve_alphas(args):
    """The alphas of ``curve``: ``--alpha``, or ``--points`` from ``--alpha-min`` to
    ``--alpha-max`` (checked)."""
    if not args.alpha:
        if args.points < 1:
            raise CLIError(f"--points must be >= 1, got {args.points} (no alphas)")
        if not 0 < args.alpha_min <= args.alpha_max:
            raise CLIError(f"need 0 < --alpha-min <= --alpha-max, got {args.alpha_min}, "
                           f"{args.alpha_max}")
    if not args.alpha and args.points > MAX_POINTS:
        raise CLIError(f"--points {args.points} is more than the {MAX_POINTS:,} a curve "
                       "computes (each point is a fixed point kept in memory): use fewer, or "
                       "'srfsym sweep' for a large grid")
    spacing = np.geomspace if args.log_alpha else np.linspace
    return np.asarray(args.alpha if args.alpha else
                      spacing(args.alpha_min, args.alpha_max, args.points))


def curve_results(args, alphas, sim=None):
    """One learning curve of ``curve``: the fixed points (``lc``), the bounds (``b``), the
    simulation (``sim``: run here with ``--simulate`` unless given), the output rows of both,
    the classification baselines (``base``) of a classifier, the warnings and notes."""
    from types import SimpleNamespace

    from ..theory.bounds import bounds
    if getattr(args, "optimize_lambda", False):
        lc = optimal_curve(args, alphas)
    else:
        lc = _learning_curve(args, alphas)
    mp = lc.results[0].mapping
    voc = vocabulary_arg(args)
    b = None if _no_bounds(args) else bounds(
        args.student, args.teacher, mp.r, mp.c, mp.gamma, vocabulary=voc,
        bias=bool(getattr(args, "bias", False)))
    if args.simulate and sim is None:
        from ..simulation.simulate import simulate
        sim = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                       list(np.asarray(args.sim_alpha or alphas[:: max(1, len(alphas) // 6)])),
                       d=args.d_sim, beta=args.beta, seeds=args.seeds,
                       progress=not args.quiet,
                       shared_first_layer=args.shared_first_layer, vocabulary=voc,
                       steps=getattr(args, "steps", 1), **_loss_kwargs(args))
    # both bounds hold at this gamma (docs/theory.md (l.4))
    rows = [_theory_row(args, res, **({} if b is None else dict(
        upper_bound=b.upper, lower_bound=b.lower, kernel_baseline=b.kernel)))
        for res in lc.results]
    shown = compared_theory(args)
    sim_rows = [] if sim is None else simulation_rows(
        sim, theory=_theory_at(args, lc, sim.alphas), bulk=shown)
    base = None
    if is_classifier(lc):           # a classifier's outputs lead with its classification error
        base = classification_baselines(args, alphas, _solve_kwargs(args))
        rows = [lead_with_classification(row, {"no_step_classification_error": flat,
                                               "bayes_classification_error": base["bayes"][0]})
                for row, flat in zip(rows, base["no_step"])]
        sim_rows = [lead_with_classification(row) for row in sim_rows]
    warns = agreement_warnings(sim_rows, model_caveat(shown))
    notes = [n for res in lc.results for n in res.notes]
    return SimpleNamespace(lc=lc, b=b, sim=sim, rows=rows, sim_rows=sim_rows, base=base,
                           warns=warns, notes=notes, shown=shown)


def _no_bounds(args) -> str:
    """Why a curve has no bounds ('' when it has them): they are derived for one step on a
    single-index teacher."""
    from ..theory.fixed_point import multi_index_teacher
    if getattr(args, "steps", 1) > 1:
        return "after several steps (docs/theory.md (p.6))"
    if multi_index_teacher(args.teacher):
        return "for a multi-index target (docs/theory.md (n))"
    return ""


def curve_text(args, cr):
    """The text report of one curve (:func:`curve_results`), as lines."""
    lc, b = cr.lc, cr.b
    lines = [run_header(lc.results[0].mapping, vocabulary_arg(args), 8, args.bulk)]
    if args.bulk != "isotropic":
        lines.append(f"theory on the {lc.results[0].notes[-1]}")
    if cr.base is not None:
        lines += list(classification_lines(lc, cr.base, lc.results[0].loss, b))
    else:
        lines.append(f"bounds: not derived {_no_bounds(args)}" if b is None else
                     f"bounds: lower {b.lower:.8g}, upper {b.upper:.8g}, kernel {b.kernel:.8g}")
        lam = f" {'optimal lambda':>14s}" if getattr(args, "optimize_lambda", False) else ""
        lines.append(f"{'alpha':>10s}{lam} {'test error':>14s} {'train error':>14s}")
        for res in lc.results:
            lam = f" {res.lam:14.6g}" if getattr(args, "optimize_lambda", False) else ""
            lines.append(f"{res.alpha:10.4g}{lam} {res.test_error:14.8g} "
                         f"{res.train_error:14.8g}")
    if cr.sim is not None:
        from .simulation import simulation_table, warning_lines
        lines.append(cr.sim.summary())
        lines.append(simulation_table(cr.sim_rows, cr.sim.seeds,
                                      theory_label(cr.shown, getattr(args, "steps", 1))))
        lines += warning_lines(cr.warns)
    return lines


def optimal_curve(args, alphas):
    """The learning curve with lambda minimising the test error at each alpha
    (``curve --optimize-lambda``): the ridge's optimally regularised curve, the one the upper
    bound bounds (docs/theory.md (l.4))."""
    from ..theory.fixed_point import LearningCurve, optimal_lambda
    results = []
    for i, a in enumerate(alphas):
        with status(f"minimising the test error over lambda at alpha = {a:g} "
                    f"({i + 1}/{len(alphas)})"):
            try:
                results.append(optimal_lambda(args.student, args.teacher, args.alpha0,
                                              args.eta, float(a), beta=args.beta,
                                              **_solve_kwargs(args))[1])
            except ValueError as exc:
                raise CLIError(f"--optimize-lambda: {exc}") from None
    return LearningCurve(np.asarray(alphas), results)


def _learning_curve(args, alphas):
    """The curve's fixed points: in this process, or with ``--workers N`` on the sweeps' local
    pool in N contiguous pieces of the alphas (each warm-started along its piece), at the
    kappa node count the whole curve would use (chosen at its two ends first), so the
    answer is the serial one."""
    from ..theory.fixed_point import LearningCurve, learning_curve
    workers = getattr(args, "workers", None)        # API callers build their own Namespace
    workers = 1 if workers is None else workers
    if workers < 1:
        raise CLIError(f"--workers must be a positive integer, got {workers}")
    if workers == 1 or len(alphas) < 2:
        return learning_curve(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                              alphas, beta=args.beta,
                              progress=not (args.json or args.csv or args.quiet),
                              **_solve_kwargs(args))
    from ..sweep.run import process_map
    ends = [float(np.min(alphas)), float(np.max(alphas))]
    with status(f"kappa nodes at the ends of the curve, then {len(alphas)} points on "
                f"{min(workers, len(alphas))} processes"):
        first = learning_curve(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                               ends, beta=args.beta, **_solve_kwargs(args)).results
        pieces = [(args, list(map(float, part)), max(r.nodes for r in first))
                  for part in np.array_split(np.asarray(alphas), min(workers, len(alphas)))]
        parts = process_map(_curve_piece, pieces, workers)
    results = [r for part in parts for r in part]
    for r in results:               # the step's mapping (generated code) is the parent's
        r.mapping = first[0].mapping
    return LearningCurve(np.asarray(alphas, float), results)


def _curve_piece(job):
    """One piece of ``curve --workers``: ``(args, alphas, nodes)`` -> its fixed-point
    results, without the step's mapping (its generated functions do not pickle)."""
    from ..theory.fixed_point import learning_curve
    args, alphas, nodes = job
    results = learning_curve(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                             alphas, beta=args.beta, nodes=nodes, **_solve_kwargs(args)).results
    for r in results:
        r.mapping = None
    return results


def compared_theory(args):
    """The theory a command displays, as the keywords of its spectral back end (``None``: the
    isotropic bulk c MP): the one every comparison with a simulation uses."""
    if getattr(args, "bulk", "isotropic") == "exact":
        return {"bulk": "exact"}
    if getattr(args, "bulk", "isotropic") == "step":
        return {"bulk": "step", "d": args.d, "seed": args.seed}
    if getattr(args, "spectrum", "mp") == "sample":
        return {"spectrum": "sample", "d": args.d, "seed": args.seed}
    return None


def _theory_at(args, lc, alphas):
    """The displayed curve's results at the simulation's ``alphas`` (those of the curve
    reused, the others solved with the same options)."""
    from ..theory.fixed_point import learning_curve
    known = {float(r.alpha): r for r in lc.results}
    missing = [float(a) for a in alphas if float(a) not in known]
    if missing:
        more = learning_curve(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                              missing, beta=args.beta, **_solve_kwargs(args))
        known.update({float(r.alpha): r for r in more.results})
    return [known[float(a)] for a in alphas]


def curve_notes(alphas, test_error, b, lam):
    """Caption notes for a learning curve: where it crosses a line, and why that is allowed."""
    notes = []
    above = np.asarray(alphas)[np.asarray(test_error) > b.upper * (1 + 1e-9)]
    if above.size:
        where = (f"\u03b1 \u2264 {above.max():.3g}" if above.max() < np.max(alphas)
                 else "every \u03b1 shown")
        notes.append(f"At {where} the test error at \u03bb = {lam:g} lies above the upper bound "
                     "U: U bounds the test error minimised over \u03bb (its \u03bb \u2192 "
                     f"\u221e limit), and \u03bb = {lam:g} is not optimal there "
                     "(docs/theory.md (l.4)).")
    if abs(b.upper - b.lower) <= 1e-3 * max(abs(b.upper), 1e-300):
        notes.append(f"The upper and lower bounds coincide here ({b.upper:.4g}).")
    if abs(b.upper - b.kernel) <= 1e-3 * abs(b.kernel):
        notes.append("The upper bound coincides with the kernel baseline.")
    return notes


def curve_title(args, mapping, voc=None):
    """Title of a learning-curve figure: the pair, the step, lambda and the readout."""
    title = (f"{mapping.student.name} student, {mapping.teacher.name} teacher, "
             f"$\\alpha_0$ = {args.alpha0:g}, $\\tilde\\eta$ = {args.eta:g}, "
             + ("$\\lambda$ minimising the test error" if getattr(args, "optimize_lambda", False)
                else f"$\\lambda$ = {args.lam:g}"))
    if voc is not None and not voc.is_uniform:
        title += ("\nreadout letters $\\omega$ = {" + ", ".join(f"{w:g}" for w in voc.letters)
                  + "}, $\\pi$ = {" + ", ".join(f"{p:.3g}" for p in voc.weights) + "}")
    return title


def curve_figure(args, lc, b, sim, warns=(), base=None):
    """The learning-curve figure (theory, bounds, kernel baseline, simulation points; a
    classifier's classification panel first, with its baselines); the caption carries the
    notes and the warnings on the agreement with the simulation."""
    from .figures import caption, legend_right, pyplot, sem_label
    plt = pyplot()
    first = lc.results[0]
    loss = getattr(first, "loss", "square")
    cl = is_classifier(lc)
    if cl:      # labels +-1: the classification error first, the test MSE beside it
        fig, (ax2, ax) = plt.subplots(1, 2, figsize=(11, 3.8))
        extra = "one first layer: readout noise only" if args.shared_first_layer else ""
        classification_panel(ax2, lc, base, args, sim, None if sim is None else sem_label(
            "network simulation", args.d_sim, args.seeds, extra))
    else:
        fig, ax = plt.subplots(figsize=(6, 3.8))
    optimal = getattr(args, "optimize_lambda", False)
    lam_label = ("optimal $\\lambda$ at each $\\alpha$" if optimal
                 else f"$\\lambda$ = {args.lam:g}")
    ax.plot(lc.alphas, lc.test_error, color="C0", lw=2,
            label=f"sRF theory, {lam_label}"
            + ("" if loss == "square" else f" ({loss} loss, test MSE)")
            + ("" if getattr(args, "bulk", "isotropic") == "isotropic"
               else f"\n{args.bulk} bulk of the step (docs/theory.md (g))"))
    # the bounds are on the error to the teacher function: not for sampled (Bernoulli) labels
    # nor for noisy +-1 labels (the test MSE is against the drawn label there); the upper
    # bound is the ridge's lambda -> infinity limit: not a bound for another loss (the lower
    # bound and the kernel baseline hold for any readout in the span: on the MSE panel only)
    sampled = getattr(args, "label_rule", "teacher") == "bernoulli" or (
        cl and getattr(args, "noise", 0.0) > 0)
    ridge = loss == "square"
    if not sampled and b is not None:       # no bounds after several steps
        if ridge:
            ax.axhline(b.upper, ls="--", color="C1",
                       label="upper bound on $\\min_\\lambda$ test error\n"
                       "($\\lambda\\to\\infty$ limit)")
        ax.axhline(b.lower, ls="-.", color="C2",
                   label=f"lower bound (any $\\lambda$, $\\gamma$ = {b.gamma:.3g})")
        ax.axhline(b.kernel, ls=":", color="k", label="kernel baseline (best linear)")
    if sim is not None:
        extra = "one first layer: readout noise only" if args.shared_first_layer else ""
        ax.errorbar(sim.alphas, sim.test_error, yerr=sim.test_error_sem, fmt="o", ms=4,
                    capsize=3, color="C3", mec="k",
                    label=sem_label("network simulation", args.d_sim, args.seeds, extra))
    if args.log_alpha:
        ax.set_xscale("log")
    ax.set_xlabel(r"$\alpha = n/d$")
    ax.set_ylabel(r"test MSE" if cl else r"test error $\varepsilon_g$")
    title = curve_title(args, lc.results[0].mapping, vocabulary_arg(args))
    ax.grid(alpha=0.3, which="both")
    if cl:
        fig.suptitle(title, fontsize=10)
        ax.legend(fontsize=7)
        fig.tight_layout()
    else:
        ax.set_title(title, fontsize=10)
        legend_right(ax)
    caption(fig, ([] if sampled or not ridge or optimal or b is None
                  else curve_notes(lc.alphas, lc.test_error, b, args.lam))
            + [w[0].upper() + w[1:] + "." for w in warns])
    return fig


def register(sub):
    p = sub.add_parser("error", help="test error from the fixed point",
                       description="Test and train error of the ridge readout from the fixed "
                       "point of Result 3.3, for any width ratio beta (docs/theory.md (f), (g)); "
                       "of any convex readout loss with --loss (m), after several steps with "
                       "--steps (p), for a multi-index target in z1..z4 (n).")
    add_physics(p, need_lam=False)
    add_steps(p)
    p.add_argument("--lam", type=float, help="ridge penalty lambda (sum loss)")
    p.add_argument("--optimize-lambda", action="store_true",
                   help="minimise the test error over lambda at each alpha")
    add_spectrum(p)
    add_loss(p)
    add_bulk(p)
    p.add_argument("--dps", type=int, default=None, help="also solve in mpmath at this precision")
    add_output(p)
    p.set_defaults(func=cmd_error)

    p = sub.add_parser(
        "bounds", help="upper/lower bounds on the test error (valid at every gamma)",
        description="Upper and lower bounds on the test error and the kernel baseline, at "
        "fixed sRF parameters (--r --c [--gamma]), after one step (--alpha0 --eta, through the "
        "mapping), or minimised over the learning rate (--alpha0 --optimize-eta).  Both bounds "
        "hold at every alignment gamma (docs/theory.md (l.4)).")
    p.add_argument("--student", required=True, help="student activation (name or expression in x)")
    p.add_argument("--teacher", required=True, help="teacher activation")
    p.add_argument("--r", type=float, help="spike strength r (fixed sRF parameters)")
    p.add_argument("--c", type=float, help="bulk variance c > 0 (fixed sRF parameters)")
    p.add_argument("--gamma", type=float, help="alignment gamma in [-1, 1] (default 1 with "
                   "--r --c; with --optimize-eta it replaces the mapping's gamma, e.g. 1 for the "
                   "papers' optimised bounds)")
    p.add_argument("--alpha0", type=float, help="step samples per dimension n0/d (inf allowed)")
    p.add_argument("--eta", type=float, help="learning rate eta-tilde of the step")
    p.add_argument("--optimize-eta", action="store_true",
                   help="minimise each bound over eta in (0, --eta-max] at --alpha0")
    p.add_argument("--eta-max", type=float, default=20.0,
                   help="largest eta searched by --optimize-eta (default 20)")
    p.add_argument("--dps", type=int, default=None,
                   help="also evaluate at this many digits with mpmath (the float fields are "
                   "then these values rounded)")
    p.add_argument("--bias", action="store_true",
                   help="a trained output bias: the constant function joins both spans "
                   "(docs/theory.md (m))")
    add_vocabulary(p)
    add_steps(p)
    add_output(p)
    p.set_defaults(func=cmd_bounds)

