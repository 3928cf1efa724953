"""``srfsym error``, ``bounds``, ``curve``: the fixed point, its bounds, learning curves."""
from __future__ import annotations


import mpmath
import numpy as np

from .common import (SHARED_HELP, CLIError, add_output, add_physics, add_spectrum,
                     emit_csv, emit_json, out)


def _solve_kwargs(args):
    kw = {"spectrum": args.spectrum}
    if args.spectrum == "sample":
        if args.d is None:
            raise CLIError("--spectrum sample needs --d (the dimension of the sampled matrix)")
        if args.d < 2:
            raise CLIError(f"--d must be an integer >= 2 for --spectrum sample, got {args.d}")
        kw.update(d=args.d, seed=args.seed)
    return kw


def cmd_error(args):
    from ..fixed_point import optimal_lambda, solve
    rows = []
    results = []
    start = None
    if args.lam is None and not args.optimize_lambda:
        raise CLIError("give --lam, or --optimize-lambda to minimise the test error over lambda")
    for a in args.alpha:
        if args.optimize_lambda:
            lam, res = optimal_lambda(args.student, args.teacher, args.alpha0, args.eta, a,
                                      beta=args.beta, **_solve_kwargs(args))
            res.notes.append(f"lambda minimising the test error: {lam:.6g}")
        else:
            res = solve(args.student, args.teacher, args.alpha0, args.eta, args.lam, a,
                        beta=args.beta, dps=args.dps, start=start, **_solve_kwargs(args))
        start = res.state
        results.append(res)
        rows.append(res.to_dict(args.dps or 30))
    if args.json:
        emit_json(rows)
    elif args.csv:
        emit_csv(rows)
    else:
        m = results[0].mapping
        out(f"sRF parameters: r = {m.r:.10g}, c = {m.c:.10g}, gamma = {m.gamma:.10g}")
        for res in results:
            out(str(res))
            for note in res.notes:
                out(f"  note: {note}")
            if res.mp_test_error is not None:
                out(f"  test error ({args.dps} digits) = {mpmath.nstr(res.mp_test_error, args.dps)}")


def _bounds_mode(args):
    """'fixed' (--r --c [--gamma]), 'eta' (--alpha0 --eta) or 'optimize' (--alpha0
    --optimize-eta); anything else is a clear error."""
    srf = [n for n in ("r", "c", "gamma") if getattr(args, n) is not None]
    step = [n for n in ("alpha0", "eta") if getattr(args, n) is not None]
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
    from ..bounds import bounds, optimal_learning_rate_bounds
    from ..mapping import srf_mapping
    mode = _bounds_mode(args)
    if mode == "optimize":
        if args.dps is not None:
            raise CLIError("--dps is not available with --optimize-eta (the optimum is found in "
                           "double precision); evaluate at the printed eta with --eta and --dps")
        opt = optimal_learning_rate_bounds(args.student, args.teacher, args.alpha0,
                                           eta_max=args.eta_max)
        row = {"student": args.student, "teacher": args.teacher, **opt.to_dict()}
        if args.json:
            emit_json(row)
        elif args.csv:
            emit_csv([row])
        else:
            out(str(opt))
            for key, b in (("upper", opt.at_upper), ("lower", opt.at_lower)):
                out(f"  at eta_{key}: r = {b.r:.8g}, c = {b.c:.8g}, gamma = {b.gamma:.8g}")
            out(f"  kernel baseline = {opt.at_upper.kernel:.10g}")
            for note in opt.notes:
                out(f"  note: {note}")
        return
    head = {"student": args.student, "teacher": args.teacher}
    if mode == "eta":
        m = srf_mapping(args.student, args.teacher, args.eta, args.alpha0)
        if args.dps is None:
            r, c, gamma = m.r, m.c, m.gamma
        else:   # the mapping at the requested precision, not its double rounding
            r, c, gamma = (v.decimal(args.dps + 10) for v in m.values().values())
        head.update(alpha0=args.alpha0, eta=args.eta)
    else:
        r, c, gamma = args.r, args.c, 1.0 if args.gamma is None else args.gamma
    b = bounds(args.student, args.teacher, r, c, gamma, dps=args.dps)
    row = {**head, **b.to_dict(args.dps or 30)}
    if args.json:
        emit_json(row)
    elif args.csv:
        emit_csv([row])
    else:
        out(str(b))
        out(f"  spike-only projection on span{{mu0, kappa mu1}} = {b.spike_span:.10g}"
            + ("" if b.gamma == 1 else "  (not a bound at gamma < 1)"))
        if b.mp_values:
            for k, v in b.mp_values.items():
                out(f"  {k:22s} = {mpmath.nstr(v, args.dps)}   [{args.dps} digits]")


def cmd_curve(args):
    from ..bounds import bounds
    from ..fixed_point import learning_curve
    if not args.alpha:
        if args.points < 1:
            raise CLIError(f"--points must be >= 1, got {args.points} (no alphas)")
        if not 0 < args.alpha_min <= args.alpha_max:
            raise CLIError(f"need 0 < --alpha-min <= --alpha-max, got {args.alpha_min}, "
                           f"{args.alpha_max}")
    alphas = np.asarray(args.alpha if args.alpha else
                        np.linspace(args.alpha_min, args.alpha_max, args.points))
    lc = learning_curve(args.student, args.teacher, args.alpha0, args.eta, args.lam, alphas,
                        beta=args.beta, progress=not (args.json or args.csv), **_solve_kwargs(args))
    mp = lc.results[0].mapping
    b = bounds(args.student, args.teacher, mp.r, mp.c, mp.gamma)
    sim = None
    if args.simulate:
        from ..simulate import simulate
        sim = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                       list(np.asarray(args.sim_alpha or alphas[:: max(1, len(alphas) // 6)])),
                       d=args.d_sim, beta=args.beta, seeds=args.seeds, progress=True,
                       shared_first_layer=args.shared_first_layer)
    rows = lc.to_rows()
    for r in rows:   # both hold at this gamma (docs/theory.md (l.4))
        r.update(upper_bound=b.upper, lower_bound=b.lower, kernel_baseline=b.kernel)
    if args.plot:
        _plot_curve(args, lc, b, sim)
    if args.json:
        payload = {"theory": rows}
        if sim is not None:
            payload["simulation"] = sim.to_dict()
        emit_json(payload)
    elif args.csv:
        emit_csv(rows)
    else:
        out(f"sRF parameters: r = {mp.r:.8g}, c = {mp.c:.8g}, gamma = {mp.gamma:.8g}; "
             f"bounds: lower {b.lower:.8g}, upper {b.upper:.8g}, kernel {b.kernel:.8g}")
        out(f"{'alpha':>10s} {'test error':>14s} {'train error':>14s}")
        for res in lc.results:
            out(f"{res.alpha:10.4g} {res.test_error:14.8g} {res.train_error:14.8g}")
        if sim is not None:
            out(sim.summary())
        if args.plot:
            out(f"plot written to {args.plot}")


def _plot_curve(args, lc, b, sim):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(lc.alphas, lc.test_error, label="sRF theory (test error)")
    ax.axhline(b.upper, ls="--", color="C1",
               label=r"upper bound on $\min_\lambda$ test error ($\lambda\to\infty$)")
    ax.axhline(b.lower, ls="--", color="C2", label=f"lower bound (at $\\gamma$ = {b.gamma:.3g})")
    ax.axhline(b.kernel, ls=":", color="k", label="kernel baseline")
    if sim is not None:
        ax.errorbar(sim.alphas, sim.test_error, yerr=sim.test_error_sem, fmt="o", color="C3",
                    label=f"simulation (d = {args.d_sim}, {args.seeds} seeds"
                    + (", one first layer: readout noise only)" if args.shared_first_layer
                       else ")"))
    ax.set_xlabel(r"$\alpha = n/d$")
    ax.set_ylabel("test error")
    ax.set_title(f"{args.student} / {args.teacher}, $\\alpha_0$ = {args.alpha0}, "
                 f"$\\eta$ = {args.eta}, $\\lambda$ = {args.lam}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=120)
    plt.close(fig)


def register(sub):
    p = sub.add_parser("error", help="test error from the fixed point")
    add_physics(p, need_lam=False)
    p.add_argument("--lam", type=float, help="ridge penalty lambda (sum loss)")
    p.add_argument("--optimize-lambda", action="store_true",
                   help="minimise the test error over lambda at each alpha")
    add_spectrum(p)
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
    p.add_argument("--gamma", type=float, help="alignment gamma in [-1, 1] (default 1)")
    p.add_argument("--alpha0", type=float, help="step samples per dimension n0/d (inf allowed)")
    p.add_argument("--eta", type=float, help="learning rate eta-tilde of the step")
    p.add_argument("--optimize-eta", action="store_true",
                   help="minimise each bound over eta in (0, --eta-max] at --alpha0")
    p.add_argument("--eta-max", type=float, default=20.0,
                   help="largest eta searched by --optimize-eta (default 20)")
    p.add_argument("--dps", type=int, default=None,
                   help="also evaluate at this many digits with mpmath (the float fields are "
                   "then these values rounded)")
    add_output(p)
    p.set_defaults(func=cmd_bounds)

    p = sub.add_parser("curve", help="learning curve (optionally plotted, with simulation)")
    add_physics(p, alpha_nargs="*")
    add_spectrum(p)
    p.add_argument("--alpha-min", type=float, default=0.1)
    p.add_argument("--alpha-max", type=float, default=4.0)
    p.add_argument("--points", type=int, default=50)
    p.add_argument("--plot", help="write a PNG with theory, bounds, kernel baseline")
    p.add_argument("--simulate", action="store_true", help="overlay simulation points")
    p.add_argument("--sim-alpha", type=float, nargs="*")
    p.add_argument("--d-sim", type=int, default=500)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--shared-first-layer", action="store_true", help=SHARED_HELP)
    add_output(p)
    p.set_defaults(func=cmd_curve)
