"""``srfsym scaling``: random-feature ridge regression beyond the proportional regime
(docs/theory.md (o)): the excess-risk exponent and the regions of the (l, q) plane for a
power-law kernel, and the deterministic equivalent's curve at given n, p, lambda."""
from __future__ import annotations

import math

import numpy as np

from .common import CLIError, add_output, emit_output, out, status, table_row


def _spectrum(args):
    from ..theory.dimension_free.spectra import PowerLawSpectrum
    from ..theory.dimension_free.sphere import sphere_spectrum
    power = args.a is not None or args.r is not None
    if power and args.student is not None:
        raise CLIError("give either --a and --r (a power-law kernel) or --student, --teacher "
                       "and --d (random features on the sphere), not both")
    if power:
        if args.a is None or args.r is None:
            raise CLIError("a power-law kernel needs both --a (capacity) and --r (source)")
        return PowerLawSpectrum(args.a, args.r, head=args.head), "power-law", "power-law"
    if args.student is None or args.teacher is None or args.d is None:
        raise CLIError("give --a and --r (a power-law kernel), or --student, --teacher and --d")
    with status(f"kernel spectrum of {args.student} features on the sphere, d = {args.d}"):
        return sphere_spectrum(args.student, args.teacher, args.d, args.kmax), \
            args.student, args.teacher


def _grid(args):
    if not (args.n and args.p and args.lam):
        raise CLIError("the equivalent's curve needs --n, --p and --lam (one or more values "
                       "each; they are crossed)")
    try:
        ps = [float(v) for v in args.p]
    except ValueError:
        raise CLIError(f"--p takes numbers or inf, got {args.p}") from None
    n, p, lam = np.meshgrid(np.array(args.n, float), np.array(ps), np.array(args.lam, float),
                            indexing="ij")
    return n.ravel(), p.ravel(), lam.ravel()


def _curve_rows(args, spec, student, teacher):
    from ..theory.dimension_free.equivalent import deterministic_equivalent, equivalent_values
    n, p, lam = _grid(args)
    with status(f"deterministic equivalent on {n.size} points (docs/theory.md (o))"):
        eq = deterministic_equivalent(spec, n, p, lam, noise=args.noise)
    rows = []
    for i in range(n.size):
        extra = {}
        if args.dps is not None:
            vals = equivalent_values(spec, n[i], p[i], lam[i], args.noise, dps=args.dps)
            extra["decimal"] = {k: v.decimal(args.dps) for k, v in vals.items()}
        d = args.d if student != "power-law" else None
        rows.append(table_row(
            "theory", student, teacher, lam=float(lam[i]),
            alpha=None if d is None else n[i] / d,
            beta=None if d is None or math.isinf(p[i]) else p[i] / d,
            test_error=float(eq.test_error[i]), n=float(n[i]), p=float(p[i]), d=d,
            noise=args.noise, capacity=args.a, source_exponent=args.r,
            nu1=float(eq.nu1[i]), nu2=float(eq.nu2[i]), bias_term=float(eq.bias[i]),
            variance_term=float(eq.variance[i]), excess_risk=float(eq.excess_risk[i]),
            sums_error=float(eq.sums_error[i]), method="numeric", **extra))
    return rows


def _exponent_rows(args):
    import sympy as sp

    from ..theory.dimension_free.scaling import A, R, gamma_expression, optimum, regions
    noisy = not args.noiseless
    with status("exponents from the equivalent (SymPy, docs/theory.md (o.3))"):
        a, r = sp.nsimplify(args.a), sp.nsimplify(args.r)
        g = gamma_expression(noisy).subs({A: a, R: r})
        regs = regions(a, r, noisy)
        opt = optimum(a, r, noisy)
    rows = [table_row("scaling", "power-law", "power-law", capacity=args.a,
                      source_exponent=args.r, noise=1.0 if noisy else 0.0, kind_of_row="exponent",
                      rate_exponent=str(g), best_rate=float(opt["best_rate"]),
                      best_l=float(opt["best_at"]["l"]), best_q=float(opt["best_at"]["q"]),
                      kernel_rate=float(opt["kernel_rate"]), q_min=float(opt["q_min"]),
                      l_at_q_min=float(opt["l_at_q_min"]),
                      decimal={"rate_exponent": str(g), "kernel_rate": str(opt["kernel_rate"]),
                               "q_min": str(opt["q_min"]), "best_rate": str(opt["best_rate"])})]
    for reg in regs:
        rows.append(table_row("scaling", "power-law", "power-law", capacity=args.a,
                              source_exponent=args.r, noise=1.0 if noisy else 0.0,
                              kind_of_row="region", regime=reg["regime"],
                              dominant=reg["dominant"], rate_exponent=str(reg["gamma"]),
                              conditions=str(reg["conditions"])))
    return rows


def _text(rows):
    for row in rows:
        if row.get("kind_of_row") == "exponent":
            out(f"excess risk ~ n^-gamma, lam/n = n^-l, p = n^q, Lam_k = k^-{row['capacity']}, "
                f"theta_k = k^-({row['capacity']}*{row['source_exponent']} + 1/2)"
                f"{'' if row['noise'] else ', noiseless'}:")
            out(f"  gamma(l, q) = {row['rate_exponent']}")
            out(f"  kernel rate {row['decimal']['kernel_rate']}; reached from q = "
                f"{row['decimal']['q_min']} (with l = {row['l_at_q_min']:.6g}); best "
                f"{row['decimal']['best_rate']} at l = {row['best_l']:.6g}, "
                f"q = {row['best_q']:.6g}")
            out("  regions (which balance sets nu2; which term dominates):")
        elif row.get("kind_of_row") == "region":
            out(f"    {row['regime']:9s} {row['dominant']:13s} gamma = {row['rate_exponent']:18s}"
                f" where {row['conditions']}")
    curve = [r for r in rows if r["source"] == "theory"]
    if curve:
        out(f"{'n':>12} {'p':>12} {'lam':>10} {'nu2':>12} {'bias':>12} {'variance':>12} "
            f"{'excess':>12} {'test_error':>12}")
        for r in curve:
            out(f"{r['n']:12.6g} {r['p']:12.6g} {r['lam']:10.4g} {r['nu2']:12.6g} "
                f"{r['bias_term']:12.6g} {r['variance_term']:12.6g} {r['excess_risk']:12.6g} "
                f"{r['test_error']:12.6g}")
            for k, v in (r.get("decimal") or {}).items():
                out(f"{'':14}{k} = {v}")


def cmd_scaling(args):
    if not (math.isfinite(args.noise) and args.noise >= 0):
        raise CLIError(f"--noise is a variance: a finite number >= 0, got {args.noise}")
    spec, student, teacher = _spectrum(args)
    rows = []
    if student == "power-law" and not args.n:
        rows += _exponent_rows(args)
    elif student == "power-law" and not args.no_exponent:
        rows += _exponent_rows(args)
    if args.n or args.p or args.lam:
        rows += _curve_rows(args, spec, student, teacher)
    notes = ["excess risk = bias + variance (E(f - f_star)^2); test error adds the noise; "
             "lam is the sum-loss ridge of docs/theory.md (a); in the exponents lam/n = n^-l"]
    if emit_output(args, rows, notes=notes):
        return
    _text(rows)


def register(sub):
    p = sub.add_parser(
        "scaling", help="beyond proportional: the dimension-free deterministic equivalent of "
                        "random-feature ridge regression and its scaling laws",
        description="Power-law kernel (--a, --r): the excess-risk exponent gamma(l, q) derived "
                    "by SymPy, its regions and optimum; with --n --p --lam, the equivalent's "
                    "curve.  Random features sigma(<w, x>) on the sphere (--student --teacher "
                    "--d): the equivalent on the exact Gegenbauer spectrum (docs/theory.md (o)).")
    p.add_argument("--a", type=float, help="capacity: kernel eigenvalues k^-a (a > 1)")
    p.add_argument("--r", type=float, help="source: target coefficients k^-(a r + 1/2) (r > 0)")
    p.add_argument("--student", help="activation of the random features (sphere)")
    p.add_argument("--teacher", help="target activation sigma_star(<theta, x>) (sphere)")
    p.add_argument("--d", type=int, help="input dimension (sphere)")
    p.add_argument("--kmax", type=int, default=8, help="spherical-harmonic degrees kept exactly")
    p.add_argument("--n", type=float, nargs="+", help="samples (one or more)")
    p.add_argument("--p", nargs="+", help="features (one or more; inf: the kernel)")
    p.add_argument("--lam", type=float, nargs="+", help="ridge penalty (sum loss)")
    p.add_argument("--noise", type=float, default=0.0, help="label-noise variance")
    p.add_argument("--noiseless", action="store_true", help="exponents without label noise")
    p.add_argument("--no-exponent", action="store_true",
                   help="with --a --r and a curve: skip the exponent table")
    p.add_argument("--head", type=int, default=1000,
                   help="power law: terms summed exactly before the Euler-Maclaurin tail")
    p.add_argument("--dps", type=int, default=None, help="also evaluate in mpmath at this "
                                                         "precision")
    add_output(p)
    p.set_defaults(func=cmd_scaling)
