"""``srfsym derive``: the derivation chain step by step, or one derivation script."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .common import (DEFAULT, CLIError, out, step)


def _derivations_dir() -> Path:
    here = Path(__file__).resolve().parents[2] / "derivations"
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
            out(f"{p.stem:28s} {_title_of(p)}")
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
    from ..symbolic.activations import activation
    from ..symbolic.hermite import hermite_constants
    from ..step.mapping import srf_mapping, mapping_expressions
    from ..symbolic.cget import cget_coefficients, teacher_functions
    from ..theory.spectrum import MarchenkoPastur
    from ..theory.fixed_point import solve, learning_curve
    from ..theory.bounds import bounds
    st, te = activation(args.student), activation(args.teacher)
    dps = args.dps
    if not args.lam > 0:       # every input checked before the first step is printed
        raise ValueError(f"--lam (ridge penalty lambda) must be > 0 for the derivation, "
                         f"got {args.lam}")
    out(f"srfsym derive: student {st.name}, teacher {te.name}, eta = {args.eta}, "
         f"alpha0 = {args.alpha0}, lambda = {args.lam}")

    step(1, "Activations")
    for role, a in (("student", st), ("teacher", te)):
        out(f"  {role}: sigma(x) = {a.expr}  ({a.parity});  sigma'(x) = {a.derivative}")

    step(2, "Hermite constants (docs/theory.md (b))")
    for role, a in (("student", st), ("teacher", te)):
        hc = hermite_constants(a)
        out(f"  {role} {a.name}:")
        for key, v in hc.as_dict().items():
            closed = f" = {v.expr}" if v.expr is not None and not v.expr.is_Number else ""
            out(f"    {key:12s}{closed} = {v.decimal(dps)}  [{v.method}]")

    step(3, "Spike/bulk mapping (docs/theory.md (c), Result 3.1)")
    for key, e in mapping_expressions().items():
        out(f"  {key} = {e}")
    m = srf_mapping(st, te, args.eta, args.alpha0)
    for key, v in m.values().items():
        out(f"  {key:15s} = {v.decimal(dps)}  [{v.method}]")
    for n in m.notes:
        out(f"  note: {n}")

    step(4, "Conditional Gaussian-equivalence coefficients (docs/theory.md (d), (e))")
    co, tf = cget_coefficients(st), teacher_functions(te)
    for fam in (co, tf):
        for n, e in fam.expressions().items():
            out(f"  {n}(kappa) = " + (str(e) if e is not None else
                                      f"(numeric: {fam.how()[n]})"))
    ks = np.array([-1.0, 0.0, 0.5, 1.5])
    vals = co.numpy()(ks, m.r, m.c)
    tv = tf.numpy()(ks, m.gamma)
    out(f"  at r = {m.r:.6g}, c = {m.c:.6g}, gamma = {m.gamma:.6g}:")
    out("    kappa " + " ".join(f"{n:>12s}" for n in co.names + tf.names))
    for i, k in enumerate(ks):
        out(f"    {k:5.2f} " + " ".join(f"{float(v[i]):12.8f}" for v in (*vals, *tv)))

    step(5, "Spectral side (docs/theory.md (g), (h)): c * Marchenko-Pastur, F -> c, H -> D")
    mp = MarchenkoPastur(beta=1.0, c=m.c)
    mom = mp.moments(args.lam + 1.0, 1.0)
    out(f"  e.g. at lambda' = {args.lam + 1.0:g}, Vhat1 = 1: <1/S> = {mom.inv:.12g}, "
         f"<D/S> = {mom.rho:.12g}, <F/S> = {mom.F:.12g}, <H/S> = {mom.H:.12g}")

    step(6, "Fixed point of Result 3.3 and the test error (docs/theory.md (f))")
    res = solve(st, te, args.alpha0, args.eta, args.lam, 1.0)
    out("  " + str(res).replace("\n", "\n  "))
    lc = learning_curve(st, te, args.alpha0, args.eta, args.lam, [0.25, 0.5, 1.0, 2.0, 4.0])
    out("  learning curve:  " + ", ".join(f"alpha {r.alpha:g}: {r.test_error:.6f}"
                                             for r in lc.results))

    step(7, "Bounds on the test error at the mapping's gamma, kernel baseline "
            "(docs/bounds.md)")
    b = bounds(st, te, m.r, m.c, m.gamma)
    out(f"  at gamma = {m.gamma:.6g}: lower = {b.lower:.10g}, upper = {b.upper:.10g}, "
        f"kernel (best linear) baseline = {b.kernel:.10g}")
    out(f"  lower = mu2* - |projection of h on span{{mu0, kappa mu1}}|^2 - (E h1 mu1)^2/E mu1^2;"
        f" the spike-only part {b.spike_span:.10g} alone is not a bound when gamma < 1")
    from ..theory.fixed_point import optimal_lambda
    lam_opt, best = optimal_lambda(st, te, args.alpha0, args.eta, 4.0)
    out(f"  alpha = 4: min over lambda of the test error = {best.test_error:.8g} "
        f"(lambda* = {lam_opt:.4g}); lower <= it <= upper: "
        f"{b.lower <= best.test_error <= b.upper}")
    out("")
    out("Each step has its own script: `srfsym derive --list`.")


# ---------------------------------------------------------------------------------------


def register(sub):
    p = sub.add_parser("derive", help="print the derivation chain step by step",
                       description="The derivation chain, step by step, for one student / "
                       "teacher pair (each step cites its section of docs/theory.md), or one of "
                       "the derivation scripts.")
    p.add_argument("name", nargs="?", help="a derivation script (see --list); without it, the "
                   "whole chain")
    p.add_argument("--list", action="store_true", help="list the derivation scripts")
    p.add_argument("--student", default=DEFAULT["student"], help="student activation")
    p.add_argument("--teacher", default=DEFAULT["teacher"], help="teacher activation")
    p.add_argument("--eta", type=float, default=DEFAULT["eta"], help="learning rate eta-tilde")
    p.add_argument("--alpha0", type=float, default=DEFAULT["alpha0"],
                   help="step samples per dimension n0/d")
    p.add_argument("--lam", type=float, default=DEFAULT["lam"], help="ridge penalty lambda")
    p.add_argument("--dps", type=int, default=20, help="digits of the printed values")
    p.set_defaults(func=cmd_derive)
