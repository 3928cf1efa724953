"""``srfsym activation``, ``coefficients``, ``mapping``: the symbolic front of the chain."""
from __future__ import annotations

import warnings

import mpmath
import sympy as sp

from .common import (CLIError, activation_row, add_output, add_vocabulary, emit_output, out,
                     status, table_row, vocabulary_arg)


# activation / coefficients / mapping

#: characters per line of the text reports (one screen wide)
WIDTH = 100


def _wrap(head, text, width=WIDTH, indent=None):
    """``head + text`` broken at spaces into lines of at most ``width`` characters (a single
    word longer than a line is broken too), continuation lines indented under ``text``."""
    import textwrap
    indent = " " * (len(head) if indent is None else indent)
    return textwrap.wrap(text, width, initial_indent=head, subsequent_indent=indent,
                         break_on_hyphens=False) or [head.rstrip()]


def closed_form_lines(label, expr, width=WIDTH, indent=2):
    """Lines showing ``label = expr`` one screen wide: short forms on one line with their
    LaTeX; long ones with named common subexpressions (``where A = ..., B = ...``, SymPy's
    ``cse``), their LaTeX left to ``--json``.

    >>> import sympy as sp
    >>> k = sp.Symbol("kappa")
    >>> g, h = sp.exp(-k**2 / 7), sp.erf(k / sp.sqrt(7))
    >>> print("\\n".join(closed_form_lines("f(kappa)", g * h + k * g * h**2, width=40)))
      f(kappa) = A*B**2*kappa + A*B
        where A = exp(-kappa**2/7)
              B = erf(sqrt(7)*kappa/7)
          (LaTeX of the whole form: --json)
    """
    pad = " " * indent
    text = str(expr)
    if len(pad) + len(label) + 3 + len(text) <= width:
        lines = [f"{pad}{label} = {text}"]
        latex = sp.latex(expr)
        tab = f"{pad}{' ' * len(label)} "
        if len(tab) + 9 + len(latex) <= width:
            lines.append(f"{tab}  LaTeX: {latex}")
        return lines
    taken = {s.name for s in expr.free_symbols}
    replacements, (reduced,) = sp.cse(expr, symbols=sp.numbered_symbols("cse", cls=sp.Dummy))
    # short pieces (sqrt(2), c + 1, ...) read better in place than as a name
    inline, kept = {}, []
    for sym, sub in replacements:          # in dependency order
        sub = sub.xreplace(inline)
        if len(str(sub)) <= 12:
            inline[sym] = sub
        else:
            kept.append((sym, sub))
    letters = (n for n in (chr(c) for c in range(ord("A"), ord("Z") + 1)) if n not in taken)
    rename = {sym: sp.Symbol(next(letters)) for sym, _ in kept}
    replacements = [(rename[sym], sub.xreplace(rename)) for sym, sub in kept]
    reduced = reduced.xreplace(inline).xreplace(rename)
    lines = _wrap(f"{pad}{label} = ", str(reduced), width)
    for i, (sym, sub) in enumerate(replacements):
        head = f"{pad}  {'where' if i == 0 else '     '} {sym} = "
        lines += _wrap(head, str(sub), width)
    lines.append(f"{pad}    (LaTeX of the whole form: --json)")
    return lines

def cmd_activation(args):
    from ..symbolic.activations import activation
    from ..symbolic.hermite import hermite_constants
    from ..symbolic.cget import cget_coefficients
    from ..symbolic import gaussian
    act = activation(args.expr)
    with status(f"deriving the constants and conditional coefficients of {act.name} (rule "
                f"table, then sympy.integrate up to {gaussian.INTEGRATE_TIMEOUT:g} s per integral, "
                "then quadrature)"):
        hc = hermite_constants(act)
        co = cget_coefficients(act)
        with status(f"checking the constants at {args.dps} digits"):
            constants = {k: (v, v.decimal(args.dps)) for k, v in hc.as_dict().items()}
    hermite = _hermite_coefficients(hc, args.order, args.dps)
    shown = {**constants, **hermite}
    row = activation_row("activation", act.name,
                         **{k: float(v) for k, (v, _) in shown.items()},
                         parity=act.parity,
                         method=" ".join(sorted({v.method for v, _ in shown.values()})),
                         decimal={k: text for k, (_, text) in shown.items()})
    details = {"activation": {"expr": str(act.expr), "latex": act.latex(),
                              "derivative": str(act.derivative),
                              "kinks": [str(k) for k in act.kinks]},
               "constants": {k: v.to_dict(args.dps) for k, (v, _) in constants.items()},
               "cget": {n: {"expr": None if e is None else str(e),
                            "latex": None if e is None else sp.latex(e),
                            "method": co.methods()[n], "how": co.how()[n]}
                        for n, e in co.expressions().items()}}
    if hermite:
        details["hermite_coefficients"] = {k: v.to_dict(args.dps) for k, (v, _) in hermite.items()}
    if emit_output(args, [row], details=details):
        return
    out(f"activation {act.name}:")
    for line in closed_form_lines("sigma(x)", act.expr):
        out(line)
    out(f"  parity: {act.parity}" + ("" if act.is_odd else
                                       "   (the one-step theory assumes an odd student)"))
    for line in closed_form_lines("sigma'(x)", act.derivative):
        out(line)
    if act.kinks:
        out(f"  kinks/jumps at x = {', '.join(str(k) for k in act.kinks)}")
    out("")
    out(f"Hermite constants (z ~ N(0,1)), {args.dps} digits:")
    _print_values(constants, args.dps)
    if hermite:
        out(f"Hermite coefficients mu_k = E[sigma(z) He_k(z)], k = 2..{args.order} "
            "(sigma = sum_k mu_k He_k / k!):")
        _print_values(hermite, args.dps)
    out("")
    out("conditional coefficients (a = r kappa, s = sqrt(c)):")
    for n, e in co.expressions().items():
        if e is None:
            out(f"  {n}(kappa) : numeric ({co.how()[n]})")
        else:
            for line in closed_form_lines(f"{n}(kappa)", e):
                out(line)


def _hermite_coefficients(hc, order, dps):
    """``{"mu_k": (Value, decimal)}`` for k = 2..order (``--order``; mu0, mu1 are the
    constants already shown); empty without ``--order``."""
    if order is None:
        return {}
    from ..symbolic.hermite import MAX_HERMITE_INDEX
    if not 2 <= order <= MAX_HERMITE_INDEX:
        raise CLIError(f"--order must be an integer from 2 to {MAX_HERMITE_INDEX} (mu0 and mu1 "
                       f"are always shown), got {order}")
    values = {}
    with status(f"Hermite coefficients mu_2 .. mu_{order} at {dps} digits"):
        for k in range(2, order + 1):
            try:
                v = hc.mu_k(k)
            except ValueError as exc:
                raise CLIError(str(exc)) from None
            values[f"mu_{k}"] = (v, v.decimal(dps))
    return values


def _print_values(values, dps):
    """Text lines of checked constants: the decimal, how it was obtained, its verified
    digits and closed form."""
    for key, (v, text) in values.items():
        for line in _wrap(f"  {key:13s} = ", f"{text}   [{v.method}: {v.how}]", indent=18):
            out(line)
        if v.good_digits(dps) < dps and text != "0":   # the rest is not printed
            for line in _wrap(" " * 18, f"(only {v.good_digits(dps)} digits verified: two "
                              "independent quadratures differ by "
                              f"{mpmath.nstr(v.abs_error(dps), 2)})"):
                out(line)
        if v.expr is not None and not v.expr.is_Number:
            for line in closed_form_lines(" " * 14, v.expr, indent=2):
                out(line)


def _kappas(args):
    """The kappas of ``coefficients``: ``--kappa`` (one or more, decimals read exactly) or
    ``--kappa-grid MIN MAX N`` (N evenly spaced), not both."""
    if (args.kappa is None) == (args.kappa_grid is None):
        raise CLIError("give --kappa K [K ...] or --kappa-grid MIN MAX N (one of them)")
    if args.kappa is not None:
        return list(args.kappa)
    lo, hi, n = args.kappa_grid
    try:
        lo, hi, count = mpmath.mpf(lo), mpmath.mpf(hi), int(n)
    except (TypeError, ValueError):
        raise CLIError(f"--kappa-grid takes MIN MAX N (two numbers and a whole count), got "
                       f"{' '.join(args.kappa_grid)}") from None
    if not (mpmath.isfinite(lo) and mpmath.isfinite(hi) and lo <= hi):
        raise CLIError(f"--kappa-grid needs finite MIN <= MAX, got {lo}, {hi}")
    if not 1 <= count <= MAX_KAPPAS:
        raise CLIError(f"--kappa-grid N must be from 1 to {MAX_KAPPAS}, got {n}")
    if count == 1:
        return [mpmath.nstr(lo, 17)]
    return [mpmath.nstr(lo + (hi - lo) * i / (count - 1), 17) for i in range(count)]


#: most kappas of one ``coefficients`` call (each checked at two working precisions)
MAX_KAPPAS = 2000


def _coefficients_at(co, kappa, args):
    """The cGET coefficients at one kappa, every printed digit checked: ``(row, detail,
    notes)``, ``notes`` the text remarks on digits that are not all good."""
    from ..symbolic.cget import agreeing_digits, PrecisionWarning
    names = co.names
    point = (kappa, args.r, args.c)
    # every printed digit is checked: two working precisions must agree (see cget.mpmath)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)
        # (double precision: a 17-digit value within 20 extra working digits tells which
        # double digits are right; cancellation beyond that leaves no double digit anyway)
        checked = co.mpmath(args.dps or 17, max_dps=None if args.dps else 37)(*point)
    if args.dps:
        good = checked.good_digits
        rows = {n: mpmath.nstr(v, max(g, 1)) for n, v, g in zip(names, checked, good)}
        errors = checked.abs_error
    else:
        vals = co.numpy()(*(float(v) for v in point))
        good = tuple(min(g, agreeing_digits(mpmath.mpf(float(v)), ref, 17))
                     for v, ref, g in zip(vals, checked, checked.good_digits))
        # double-precision values keep the digits that the checked value confirms
        rows = {n: repr(float(v)) if g >= 15 else mpmath.nstr(mpmath.mpf(float(v)), max(g, 1))
                for n, v, g in zip(names, vals, good)}
        errors = tuple(abs(mpmath.mpf(float(v)) - ref) for v, ref in zip(vals, checked))
    want = args.dps or 15
    # values fixed by the symmetry of sigma at this point (mu0 = 0 for an odd sigma at
    # r kappa = 0) are exact, with the reason, whatever the method of the formula
    methods = {n: "exact" if n in checked.exact else m for n, m in co.methods().items()}
    how = {**co.how(), **checked.exact}
    row = activation_row("coefficients", co.activation.name, kappa=kappa, r=args.r,
                         c=args.c, **{n: float(mpmath.mpf(rows[n])) for n in names},
                         method=" ".join(sorted(set(methods.values()))),
                         decimal=dict(rows))
    detail = {n: {"value": rows[n], "method": methods[n], "how": how[n],
                  "good_digits": g, "abs_error": mpmath.nstr(e, 3)}
              for n, g, e in zip(names, good, errors)}
    notes = {}
    for i, (n, g) in enumerate(zip(names, good)):
        if g < want and args.dps:
            notes[n] = (f"(only {g} significant digits agree at two working precisions up to "
                        f"{checked.working_dps} digits)")
        elif g < want and checked.good_digits[i] == 0:
            notes[n] = ("(no significant digit is good in double precision, and none could be "
                        f"verified up to {checked.working_dps} working digits: cancellation)")
        elif g < want:
            notes[n] = (f"(only {g} significant digits are good in double precision; "
                        f"checked value {mpmath.nstr(checked[i], min(12, checked.good_digits[i]))}"
                        ": use --dps)")
    for n, reason in checked.exact.items():
        notes[n] = f"(exact by {reason})"
    return row, detail, notes


def cmd_coefficients(args):
    from ..symbolic.cget import cget_coefficients
    from ..core.values import check_dps
    if args.dps is not None:     # --dps 0 is refused as by every other command
        check_dps(args.dps)
    kappas = _kappas(args)
    co = cget_coefficients(args.act)
    with status(f"evaluating {co.activation.name} at {len(kappas)} kappa"
                + ("s" if len(kappas) > 1 else "") + " at two working precisions"):
        points = [_coefficients_at(co, kappa, args) for kappa in kappas]
    rows = [row for row, _, _ in points]
    details = {"dps": args.dps}
    if len(points) == 1:
        details["coefficients"] = points[0][1]
    else:
        details["points"] = [{"kappa": row["kappa"], "coefficients": detail}
                             for row, detail, _ in points]
    if emit_output(args, rows, details=details):
        return
    methods = co.methods()
    precision = f" ({args.dps} digits)" if args.dps else " (double precision)"
    if len(points) == 1:
        row, detail, notes = points[0]
        out(f"cGET coefficients of {co.activation.name} at kappa = {kappas[0]}, r = {args.r}, "
            f"c = {args.c}" + precision)
        for n in co.names:
            note = f"   {notes[n]}" if n in notes else ""
            out(f"  {n:8s} = {row['decimal'][n]}   [{detail[n]['method']}]{note}")
        return
    out(f"cGET coefficients of {co.activation.name} at r = {args.r}, c = {args.c}, "
        f"{len(kappas)} kappas" + precision + "; "
        + ", ".join(f"{n} {methods[n]}" for n in co.names))
    width = max(24, (args.dps or 17) + 7)
    out(f"{'kappa':>12s} " + " ".join(f"{n:>{width}s}" for n in co.names))
    for kappa, (row, _, _) in zip(kappas, points):
        out(f"{kappa:>12s} " + " ".join(f"{row['decimal'][n]:>{width}s}" for n in co.names))
    for kappa, (_, _, notes) in zip(kappas, points):
        for n, note in notes.items():
            out(f"  kappa = {kappa}, {n}: {note}")


def cmd_mapping(args):
    from ..step.mapping import srf_mapping
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        m = srf_mapping(args.student, args.teacher, args.eta, args.alpha0,
                        mu0_correction=not args.no_mu0_correction,
                        vocabulary=vocabulary_arg(args))
    detail = m.to_dict(args.dps)
    row = table_row("mapping", m.student.name, m.teacher.name, alpha0=args.alpha0, eta=args.eta,
                    r=m.r, c=m.c, gamma=m.gamma,
                    method=" ".join(sorted({v.method for v in m.values().values()})))
    if args.json or args.csv:          # the same rows in both
        row.update({k: v for k, v in detail.items() if k not in row and k not in ("eta",
                                                                                  "alpha0")})
    if emit_output(args, [row], notes=m.notes):
        return
    out(f"sRF mapping: student {m.student.name}, teacher {m.teacher.name}, "
         f"eta = {args.eta}, alpha0 = {args.alpha0}")
    for key, v in m.values().items():
        closed = f"   = {v.expr}" if v.expr is not None and not v.expr.is_Number else ""
        out(f"  {key:15s} = {v.decimal(args.dps)}   [{v.method}]{closed}")
    if m.vocabulary is not None:
        out(f"  {m.vocabulary}: group j has spike r omega_j and bulk variance "
            "1 + omega_j^2 (c - 1)")
        for w, rj, cj in zip(m.vocabulary.letters, m.group_spike_strengths,
                             m.group_bulk_variances):
            out(f"    omega = {w:g}: spike_strength = {rj:.15g}, bulk_variance = {cj:.15g}")
    for n in m.notes:
        out(f"  note: {n}")


# ---------------------------------------------------------------------------------------
# test error, bounds, curves


def register(sub):
    p = sub.add_parser("activation", help="report on an activation",
                       description="Parity, derivative, Hermite constants and conditional "
                       "(cGET) coefficients of an activation, exact where a closed form exists "
                       "(docs/theory.md (b), (d)).")
    p.add_argument("expr", help="a built-in name (tanh, erf, relu, ...) or an expression in x, "
                   'e.g. "x/(1+abs(x))"')
    p.add_argument("--dps", type=int, default=30, help="digits of the printed constants")
    p.add_argument("--order", type=int, default=None, metavar="K",
                   help="also the Hermite coefficients mu_k = E[sigma(z) He_k(z)] for "
                   "k = 2..K (exact where a closed form exists)")
    add_output(p)
    p.set_defaults(func=cmd_activation)

    p = sub.add_parser("coefficients", help="cGET coefficients at one point",
                       description="mu0(kappa), mu1(kappa), mu_star(kappa)^2 at one kappa or "
                       "a list or grid of them "
                       "(docs/theory.md (d)); every printed digit is checked at two working "
                       "precisions.")
    p.add_argument("act", help="activation name or expression in x")
    p.add_argument("--r", required=True, help="spike strength r (a decimal, read exactly)")
    p.add_argument("--c", required=True, help="bulk variance c > 0")
    p.add_argument("--kappa", nargs="+", help="spike coordinate kappa (one or more)")
    p.add_argument("--kappa-grid", nargs=3, metavar=("MIN", "MAX", "N"),
                   help="N evenly spaced kappas from MIN to MAX (instead of --kappa)")
    p.add_argument("--dps", type=int, default=None,
                   help="digits (mpmath); without it, double precision")
    add_output(p)
    p.set_defaults(func=cmd_coefficients)

    p = sub.add_parser("mapping", help="spike strength, bulk variance, alignment",
                       description="One giant step (eta, alpha0) -> spike strength r, bulk "
                       "variance c, alignment gamma (docs/theory.md (c)), exact where the "
                       "constants are.")
    p.add_argument("--student", required=True, help="student activation (name or expression in x)")
    p.add_argument("--teacher", required=True, help="teacher activation")
    p.add_argument("--eta", required=True, help="learning rate eta-tilde (a decimal, read exactly)")
    p.add_argument("--alpha0", required=True, help="step samples per dimension n0/d (inf allowed)")
    p.add_argument("--dps", type=int, default=30, help="digits of the printed values")
    p.add_argument("--no-mu0-correction", action="store_true",
                   help="drop the y - mu0 corrections for students with mu0 != 0 (the papers' "
                        "formulas)")
    add_output(p)
    add_vocabulary(p)
    p.set_defaults(func=cmd_mapping)
