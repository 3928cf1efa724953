"""Command-line interface: ``srfsym SUBCOMMAND ...`` (the only module that prints).

Subcommands: ``derive``, ``activation``, ``coefficients``, ``mapping``, ``error``,
``bounds``, ``curve``, ``simulate``, ``regen-reference``.  Every numeric subcommand has
``--json``; high-precision values are printed as decimal strings with their method.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
import warnings
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

DEFAULT = {"student": "tanh", "teacher": "sin", "eta": 3.0, "alpha0": 20.0, "lam": 0.1}


class CLIError(Exception):
    pass


def _out(text=""):
    print(text)


def _json(obj):
    _out(json.dumps(obj, indent=2, default=_json_default))


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, mpmath.mpf):
        return mpmath.nstr(o, mpmath.mp.dps)
    return str(o)


def _csv(rows):
    if not rows:
        return
    buf = io.StringIO()
    keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))]
    w = csv.DictWriter(buf, fieldnames=keys, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    sys.stdout.write(buf.getvalue())


def _step(n, title):
    _out("")
    _out(f"Step {n}. {title}")
    _out("-" * (len(title) + 9))


# ---------------------------------------------------------------------------------------
# activation / coefficients / mapping

def cmd_activation(args):
    from .activations import activation
    from .hermite import hermite_constants
    from .cget import cget_coefficients
    act = activation(args.expr)
    hc = hermite_constants(act)
    co = cget_coefficients(act)
    if args.json:
        _json({"name": act.name, "expr": str(act.expr), "latex": act.latex(),
               "parity": act.parity, "derivative": str(act.derivative),
               "kinks": [str(k) for k in act.kinks],
               "constants": {k: v.to_dict(args.dps) for k, v in hc.as_dict().items()},
               "cget": {n: {"expr": None if e is None else str(e),
                            "latex": None if e is None else sp.latex(e),
                            "method": co.methods()[n], "how": co.how()[n]}
                        for n, e in co.expressions().items()}})
        return
    _out(f"activation {act.name}: sigma(x) = {act.expr}    LaTeX: {act.latex()}")
    _out(f"  parity: {act.parity}" + ("" if act.is_odd else
                                       "   (the one-step theory assumes an odd student)"))
    _out(f"  sigma'(x) = {act.derivative}")
    if act.kinks:
        _out(f"  kinks/jumps at x = {', '.join(str(k) for k in act.kinks)}")
    _out("")
    _out(f"Hermite constants (z ~ N(0,1)), {args.dps} digits:")
    for key, v in hc.as_dict().items():
        closed = f"  = {v.expr}   LaTeX: {v.latex()}" if v.expr is not None else ""
        _out(f"  {key:12s} = {v.decimal(args.dps)}   [{v.method}: {v.how}]{closed}")
    _out("")
    _out("conditional coefficients (a = r kappa, s = sqrt(c)):")
    for n, e in co.expressions().items():
        if e is None:
            _out(f"  {n}(kappa) : numeric ({co.how()[n]})")
        else:
            _out(f"  {n}(kappa) = {e}")
            _out(f"      LaTeX: {sp.latex(e)}")


def cmd_coefficients(args):
    from .cget import cget_coefficients
    co = cget_coefficients(args.act)
    names = co.names
    if args.dps:
        vals = co.mpmath(args.dps)(args.kappa, args.r, args.c)
        rows = {n: mpmath.nstr(v, args.dps) for n, v in zip(names, vals)}
    else:
        vals = co.numpy()(float(args.kappa), float(args.r), float(args.c))
        rows = {n: repr(float(v)) for n, v in zip(names, vals)}
    methods, how = co.methods(), co.how()
    if args.json:
        _json({"activation": co.activation.name, "kappa": args.kappa, "r": args.r, "c": args.c,
               "dps": args.dps, "values": {n: {"value": rows[n], "method": methods[n],
                                               "how": how[n]} for n in names}})
        return
    _out(f"cGET coefficients of {co.activation.name} at kappa = {args.kappa}, r = {args.r}, "
         f"c = {args.c}" + (f" ({args.dps} digits)" if args.dps else " (double precision)"))
    for n in names:
        _out(f"  {n:8s} = {rows[n]}   [{methods[n]}]")


def cmd_mapping(args):
    from .mapping import srf_mapping
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        m = srf_mapping(args.student, args.teacher, args.eta, args.alpha0,
                        mu0_correction=not args.no_mu0_correction)
    if args.json:
        _json(m.to_dict(args.dps))
        return
    _out(f"sRF mapping: student {m.student.name}, teacher {m.teacher.name}, "
         f"eta = {args.eta}, alpha0 = {args.alpha0}")
    for key, v in m.values().items():
        closed = f"   = {v.expr}" if v.expr is not None and not v.expr.is_Number else ""
        _out(f"  {key:15s} = {v.decimal(args.dps)}   [{v.method}]{closed}")
    for n in m.notes:
        _out(f"  note: {n}")


# ---------------------------------------------------------------------------------------
# test error, bounds, curves

def _solve_kwargs(args):
    kw = {"spectrum": args.spectrum}
    if args.spectrum == "sample":
        if not args.d:
            raise CLIError("--spectrum sample needs --d")
        kw.update(d=args.d, seed=args.seed)
    return kw


def cmd_error(args):
    from .fixed_point import optimal_lambda, solve
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
        _json(rows)
    elif args.csv:
        _csv(rows)
    else:
        m = results[0].mapping
        _out(f"sRF parameters: r = {m.r:.10g}, c = {m.c:.10g}, gamma = {m.gamma:.10g}")
        for res in results:
            _out(str(res))
            for note in res.notes:
                _out(f"  note: {note}")
            if res.mp_test_error is not None:
                _out(f"  test error ({args.dps} digits) = {mpmath.nstr(res.mp_test_error, args.dps)}")


def cmd_bounds(args):
    from .bounds import bounds
    b = bounds(args.student, args.teacher, args.r, args.c, args.gamma, dps=args.dps)
    if args.json:
        _json(b.to_dict(args.dps or 30))
        return
    _out(str(b))
    if b.mp_values:
        for k, v in b.mp_values.items():
            _out(f"  {k:7s} = {mpmath.nstr(v, args.dps)}   [{args.dps} digits]")


def cmd_curve(args):
    from .bounds import bounds
    from .fixed_point import learning_curve
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
        from .simulate import simulate
        sim = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam,
                       list(np.asarray(args.sim_alpha or alphas[:: max(1, len(alphas) // 6)])),
                       d=args.d_sim, beta=args.beta, seeds=args.seeds, progress=True,
                       shared_first_layer=args.shared_first_layer)
    rows = lc.to_rows()
    for r in rows:
        r.update(upper_bound=b.upper, lower_bound=b.lower, kernel_baseline=b.kernel)
    if args.plot:
        _plot_curve(args, lc, b, sim)
    if args.json:
        out = {"theory": rows}
        if sim is not None:
            out["simulation"] = sim.to_dict()
        _json(out)
    elif args.csv:
        _csv(rows)
    else:
        _out(f"sRF parameters: r = {mp.r:.8g}, c = {mp.c:.8g}, gamma = {mp.gamma:.8g}; "
             f"bounds: lower {b.lower:.8g}, upper {b.upper:.8g}, kernel {b.kernel:.8g}")
        _out(f"{'alpha':>10s} {'test error':>14s} {'train error':>14s}")
        for res in lc.results:
            _out(f"{res.alpha:10.4g} {res.test_error:14.8g} {res.train_error:14.8g}")
        if sim is not None:
            _out(sim.summary())
        if args.plot:
            _out(f"plot written to {args.plot}")


def _plot_curve(args, lc, b, sim):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(lc.alphas, lc.test_error, label="sRF theory (test error)")
    ax.axhline(b.upper, ls="--", color="C1", label="upper bound (lambda -> oo)")
    if b.gamma == 1.0:
        ax.axhline(b.lower, ls="--", color="C2", label="lower bound")
    else:   # MATH.md (i): a lower bound only at gamma = 1
        ax.axhline(b.lower, ls=":", color="C2",
                   label=f"spike-only projection (not a bound, gamma = {b.gamma:.3g})")
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


def cmd_simulate(args):
    from .simulate import simulate
    res = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam, args.alpha,
                   d=args.d, beta=args.beta, seeds=args.seeds, model=args.model, seed=args.seed,
                   n_test=args.n_test, workers=args.workers,
                   shared_first_layer=args.shared_first_layer,
                   progress=not (args.json or args.csv))
    if args.json:
        _json(res.to_dict())
    elif args.csv:
        d = res.to_dict()
        rows = [{"alpha": a, "test_error": t, "test_error_sem": s}
                for a, t, s in zip(d["alphas"], d["test_error"], d["test_error_sem"])]
        _csv(rows)
    else:
        _out(res.summary())


# ---------------------------------------------------------------------------------------
# derive

def _derivations_dir() -> Path:
    here = Path(__file__).resolve().parent.parent / "derivations"
    if not here.is_dir():
        raise CLIError("the derivations/ folder was not found next to the package; "
                       "install from a source checkout with `pip install -e .`")
    return here


def _derivation_scripts():
    return sorted(p for p in _derivations_dir().glob("[0-9][0-9]_*.py"))


def _title_of(path: Path) -> str:
    import ast
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TITLE"
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    return ast.get_docstring(tree).splitlines()[0] if ast.get_docstring(tree) else path.stem


def cmd_derive(args):
    if args.list:
        for p in _derivation_scripts():
            _out(f"{p.stem:28s} {_title_of(p)}")
        return
    if args.name:
        import runpy
        matches = [p for p in _derivation_scripts()
                   if p.stem == args.name or p.stem.split("_", 1)[1] == args.name
                   or p.stem.startswith(args.name + "_")]
        if not matches:
            raise CLIError(f"no derivation named {args.name!r}; see `srfsym derive --list`")
        runpy.run_path(str(matches[0]), run_name="__main__")
        return
    _derive_default(args)


def _derive_default(args):
    from .activations import activation
    from .hermite import hermite_constants
    from .mapping import srf_mapping, mapping_expressions
    from .cget import cget_coefficients, teacher_functions
    from .spectrum import MarchenkoPastur
    from .fixed_point import solve, learning_curve
    from .bounds import bounds
    st, te = activation(args.student), activation(args.teacher)
    dps = args.dps
    _out(f"srfsym derive: student {st.name}, teacher {te.name}, eta = {args.eta}, "
         f"alpha0 = {args.alpha0}, lambda = {args.lam}")

    _step(1, "Activations")
    for role, a in (("student", st), ("teacher", te)):
        _out(f"  {role}: sigma(x) = {a.expr}  ({a.parity});  sigma'(x) = {a.derivative}")

    _step(2, "Hermite constants (MATH.md (b))")
    for role, a in (("student", st), ("teacher", te)):
        hc = hermite_constants(a)
        _out(f"  {role} {a.name}:")
        for key, v in hc.as_dict().items():
            closed = f" = {v.expr}" if v.expr is not None and not v.expr.is_Number else ""
            _out(f"    {key:12s}{closed} = {v.decimal(dps)}  [{v.method}]")

    _step(3, "Spike/bulk mapping (MATH.md (c), Result 3.1)")
    for key, e in mapping_expressions().items():
        _out(f"  {key} = {e}")
    m = srf_mapping(st, te, args.eta, args.alpha0)
    for key, v in m.values().items():
        _out(f"  {key:15s} = {v.decimal(dps)}  [{v.method}]")
    for n in m.notes:
        _out(f"  note: {n}")

    _step(4, "Conditional Gaussian-equivalence coefficients (MATH.md (d), (e))")
    co, tf = cget_coefficients(st), teacher_functions(te)
    for fam in (co, tf):
        for n, e in fam.expressions().items():
            _out(f"  {n}(kappa) = " + (str(e) if e is not None else
                                      f"(numeric: {fam.how()[n]})"))
    ks = np.array([-1.0, 0.0, 0.5, 1.5])
    vals = co.numpy()(ks, m.r, m.c)
    tv = tf.numpy()(ks, m.gamma)
    _out(f"  at r = {m.r:.6g}, c = {m.c:.6g}, gamma = {m.gamma:.6g}:")
    _out("    kappa " + " ".join(f"{n:>12s}" for n in co.names + tf.names))
    for i, k in enumerate(ks):
        _out(f"    {k:5.2f} " + " ".join(f"{float(v[i]):12.8f}" for v in (*vals, *tv)))

    _step(5, "Spectral side (MATH.md (g), (h)): c * Marchenko-Pastur, F -> c, H -> D")
    mp = MarchenkoPastur(beta=1.0, c=m.c)
    mom = mp.moments(args.lam + 1.0, 1.0)
    _out(f"  e.g. at lambda' = {args.lam + 1.0:g}, Vhat1 = 1: <1/S> = {mom.inv:.12g}, "
         f"<D/S> = {mom.rho:.12g}, <F/S> = {mom.F:.12g}, <H/S> = {mom.H:.12g}")

    _step(6, "Fixed point of Result 3.3 and the test error (MATH.md (f))")
    res = solve(st, te, args.alpha0, args.eta, args.lam, 1.0)
    _out("  " + str(res).replace("\n", "\n  "))
    lc = learning_curve(st, te, args.alpha0, args.eta, args.lam, [0.25, 0.5, 1.0, 2.0, 4.0])
    _out(f"  learning curve:  " + ", ".join(f"alpha {r.alpha:g}: {r.test_error:.6f}"
                                             for r in lc.results))

    _step(7, "Bounds and kernel baseline (MATH.md (i), stated for gamma = 1)")
    b1 = bounds(st, te, m.r, m.c, 1.0)
    _out(f"  at gamma = 1: lower = {b1.lower:.10g}, upper = {b1.upper:.10g}")
    _out(f"  kernel (best linear) baseline = {b1.kernel:.10g}")
    b = bounds(st, te, m.r, m.c, m.gamma)
    _out(f"  at the mapping's gamma = {m.gamma:.6g}: spike-only projections lower = "
         f"{b.lower:.10g}, upper = {b.upper:.10g}")
    _out("  (for gamma < 1 the bulk also learns the teacher's orthogonal linear part, so the "
         "spike-only 'lower' value is not a lower bound on the test error)")
    from .fixed_point import optimal_lambda
    big = srf_mapping(st, te, args.eta, 1e9)
    lam_opt, best = optimal_lambda(st, te, 1e9, args.eta, 4.0)
    bb = bounds(st, te, big.r, big.c, big.gamma)
    _out(f"  alpha0 = 1e9 (gamma = {big.gamma:.9f}), alpha = 4: min over lambda of the test error "
         f"= {best.test_error:.8g} (lambda* = {lam_opt:.4g}); lower {bb.lower:.8g} <= it <= "
         f"upper {bb.upper:.8g}: {bb.lower <= best.test_error <= bb.upper}")
    _out("")
    _out("Each step has its own script: `srfsym derive --list`.")


# ---------------------------------------------------------------------------------------

def cmd_regen_reference(args):
    from .reference import regenerate
    paths = regenerate(Path(args.out), quick=args.quick)
    for p in paths:
        _out(f"wrote {p}")


def _add_physics(p, need_lam=True, alpha_nargs="+"):
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


def _add_spectrum(p):
    p.add_argument("--spectrum", choices=["mp", "sample"], default="mp",
                   help="deterministic Marchenko-Pastur (default) or a finite-d sample")
    p.add_argument("--d", type=int, help="dimension of the sampled spectrum")
    p.add_argument("--seed", type=int, default=0)


_SHARED_HELP = ("train one first layer and re-draw only the readout/test data per seed (the "
                "reference notebook's protocol; error bars then omit the first layer's "
                "fluctuations)")


def _add_output(p):
    """``--json`` or ``--csv`` (one of them) for commands that print tables."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="machine-readable output")
    g.add_argument("--csv", action="store_true", help="one CSV row per point")


def build_parser():
    ap = argparse.ArgumentParser(prog="srfsym", description=__doc__.splitlines()[0])
    ap.add_argument("--integrate-timeout", type=float, default=None,
                    help="seconds for the sympy.integrate attempt on expressions no rule covers "
                         "(default 2; 0 skips it and goes straight to quadrature)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("derive", help="print the derivation chain step by step")
    p.add_argument("name", nargs="?", help="a derivation script (see --list)")
    p.add_argument("--list", action="store_true", help="list the derivation scripts")
    p.add_argument("--student", default=DEFAULT["student"])
    p.add_argument("--teacher", default=DEFAULT["teacher"])
    p.add_argument("--eta", type=float, default=DEFAULT["eta"])
    p.add_argument("--alpha0", type=float, default=DEFAULT["alpha0"])
    p.add_argument("--lam", type=float, default=DEFAULT["lam"])
    p.add_argument("--dps", type=int, default=20)
    p.set_defaults(func=cmd_derive)

    p = sub.add_parser("activation", help="report on an activation")
    p.add_argument("expr")
    p.add_argument("--dps", type=int, default=30)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_activation)

    p = sub.add_parser("coefficients", help="cGET coefficients at one point")
    p.add_argument("act")
    p.add_argument("--r", required=True)
    p.add_argument("--c", required=True)
    p.add_argument("--kappa", required=True)
    p.add_argument("--dps", type=int, default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_coefficients)

    p = sub.add_parser("mapping", help="spike strength, bulk variance, alignment")
    p.add_argument("--student", required=True)
    p.add_argument("--teacher", required=True)
    p.add_argument("--eta", required=True)
    p.add_argument("--alpha0", required=True)
    p.add_argument("--dps", type=int, default=30)
    p.add_argument("--no-mu0-correction", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_mapping)

    p = sub.add_parser("error", help="test error from the fixed point")
    _add_physics(p, need_lam=False)
    p.add_argument("--lam", type=float, help="ridge penalty lambda (sum loss)")
    p.add_argument("--optimize-lambda", action="store_true",
                   help="minimise the test error over lambda at each alpha")
    _add_spectrum(p)
    p.add_argument("--dps", type=int, default=None, help="also solve in mpmath at this precision")
    _add_output(p)
    p.set_defaults(func=cmd_error)

    p = sub.add_parser("bounds", help="upper/lower bounds and kernel baseline")
    p.add_argument("--student", required=True)
    p.add_argument("--teacher", required=True)
    p.add_argument("--r", type=float, required=True)
    p.add_argument("--c", type=float, required=True)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--dps", type=int, default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bounds)

    p = sub.add_parser("curve", help="learning curve (optionally plotted, with simulation)")
    _add_physics(p, alpha_nargs="*")
    _add_spectrum(p)
    p.add_argument("--alpha-min", type=float, default=0.1)
    p.add_argument("--alpha-max", type=float, default=4.0)
    p.add_argument("--points", type=int, default=50)
    p.add_argument("--plot", help="write a PNG with theory, bounds, kernel baseline")
    p.add_argument("--simulate", action="store_true", help="overlay simulation points")
    p.add_argument("--sim-alpha", type=float, nargs="*")
    p.add_argument("--d-sim", type=int, default=500)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--shared-first-layer", action="store_true", help=_SHARED_HELP)
    _add_output(p)
    p.set_defaults(func=cmd_curve)

    p = sub.add_parser("simulate", help="finite-size simulation of the network or sRF model")
    _add_physics(p)
    p.add_argument("--d", type=int, required=True)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", choices=["network", "srf"], default="network")
    p.add_argument("--n-test", type=int, default=5000, help="fresh test points per seed")
    p.add_argument("--workers", type=int, default=None, help="cores to use (default: all)")
    p.add_argument("--shared-first-layer", action="store_true", help=_SHARED_HELP)
    _add_output(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("regen-reference", help="recompute tests/reference/*.json at 30 digits")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "tests" /
                                         "reference"))
    p.add_argument("--quick", action="store_true", help="only the small subset used by tests")
    p.set_defaults(func=cmd_regen_reference)
    return ap


def main(argv=None):
    from .activations import ActivationError
    from .gaussian import DivergentExpectationError, set_integrate_timeout
    ap = build_parser()
    args = ap.parse_args(argv)
    if getattr(args, "cmd", None) in ("error", "simulate") and not args.alpha:
        ap.error("--alpha needs at least one value")
    if getattr(args, "cmd", None) == "curve" and not args.simulate:
        for flag, given in (("--shared-first-layer", args.shared_first_layer),
                            ("--sim-alpha", args.sim_alpha is not None)):
            if given:
                ap.error(f"{flag} only applies with --simulate")
    try:
        if args.integrate_timeout is not None:
            set_integrate_timeout(args.integrate_timeout)
        args.func(args)
    except (CLIError, ActivationError, DivergentExpectationError, ValueError,
            ArithmeticError) as exc:          # ArithmeticError: FloatingPointError, overflow
        print(f"srfsym: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:                     # an output file or folder that cannot be written
        print(f"srfsym: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # ConvergenceError and friends: say what, not a traceback
        from .fixed_point import ConvergenceError
        if isinstance(exc, ConvergenceError):
            print(f"srfsym: error: {exc} (last residual {exc.residual})", file=sys.stderr)
            return 3
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
