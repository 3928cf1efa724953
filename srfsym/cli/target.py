"""``srfsym target``: the Hermite structure of a multi-index target and what giant steps learn of it."""
from __future__ import annotations

from .common import CLIError, add_output, add_vocabulary, emit_output, out, status, vocabulary_arg


def _rows(st, dps):
    rows = []
    for a, v in st.tensors.items():
        d = v.to_dict(dps)
        rows.append({"source": "target", "target": st.target.name, "k": st.target.k,
                     "multi_index": list(a), "degree": sum(a), "value": float(v),
                     "method": v.method, "decimal": {"C": d["value"]}})
    return rows


def cmd_target(args):
    from ..step.target_structure import second_step_signal, target_structure
    with status(f"Hermite tensors of {args.expr} up to order {args.order}"):
        st = target_structure(args.expr, order=args.order)
    signals, learned = {}, {}
    voc = vocabulary_arg(args)
    if args.steps < 1:
        raise CLIError(f"--steps must be an integer >= 1, got {args.steps}")
    if (args.steps > 1 or voc is not None) and not args.student:
        raise CLIError("--steps and --vocabulary say what a student's steps learn: give --student")
    for s in args.student or ():
        with status(f"second-step signal of the student {s}"):
            signals[s] = second_step_signal(s, st.target, args.eta, args.alpha0)
        if args.steps > 1:
            from ..step.directions import learned_directions
            with status(f"the {args.steps}-step map of the student {s} (docs/theory.md (p))"):
                learned[s] = learned_directions(s, st.target, args.eta, args.alpha0, args.steps,
                                                None if voc is None else voc)
    notes = [
        "C_alpha = E[g(z) He_alpha(z)], He_alpha = prod_j He_alpha_j(z_j) (probabilists'), "
        "z ~ N(0, I_k): g = sum_alpha C_alpha He_alpha / alpha! (docs/theory.md (n))",
        "information exponent: smallest degree >= 1 with a non-zero tensor; leap index: "
        "smallest l such that the coordinates are learned in rounds each adding a multi-index "
        "of degree <= l on new coordinates (Abbe, Boix-Adsera, Misiakiewicz 2023), in the "
        f"basis z1..z{st.target.k}, over the tensors up to order {args.order}"]
    details = {"target": {**{k: v for k, v in st.to_dict(args.dps).items() if k != "tensors"},
                          "second_step": signals, "eta": args.eta, "alpha0": args.alpha0,
                          "steps": args.steps,
                          "learned_directions": {s: {"verdict": v.verdict, "steps": list(v.steps)}
                                                 for s, v in learned.items()}}}
    if emit_output(args, _rows(st, args.dps), notes, details=details):
        return 0
    out(f"target g = {st.target.expr}  (k = {st.target.k} directions)")
    out(f"Hermite tensors C_alpha = E[g He_alpha], |alpha| <= {args.order} (non-zero ones):")
    for a, v in st.tensors.items():
        if a in st.support or not any(a):
            if v.is_exact:
                out(f"  C{a} = {v.expr} = {v.decimal(min(args.dps, 15))}  [exact]")
            else:
                out(f"  C{a} = {v.decimal(min(args.dps, 15))}  [numeric]")
    c1 = [float(v) for v in st.first_order]
    out(f"first-order vector c1 = E[g z] = {[round(x, 12) for x in c1]}: one step with "
        "n0 = alpha0 d samples learns the direction c1/|c1|" if any(c1) else
        "first-order vector c1 = 0: one step with n0 = O(d) samples learns no direction")
    out(f"information exponent: {st.information_exponent}")
    out(f"leap index: {st.leap if st.leap is not None else f'> {args.order}'}"
        + (f"; staircase (coordinates learned round by round): "
           f"{' -> '.join('{' + ', '.join(f'z{j}' for j in r) + '}' for r in st.staircase)}"
           if st.staircase else ""))
    for s, sig in signals.items():
        new = sig["new_direction"]
        out(f"student {s} (eta = {args.eta}, alpha0 = {args.alpha0}): alignment vector after one "
            f"step {[round(x, 6) for x in sig['alignment_vector']]}; a second step adds "
            + (f"the direction {[round(x, 6) for x in new]} (signal {sig['new_norm']:.3g})"
               if any(new) else "no new direction (signal zero: E_kappa[mu1(kappa) h1(kappa)] "
               "has no component outside c1)"))
    for s, v in learned.items():
        out(str(v))
    for n in notes:
        out(f"  note: {n}")
    return 0


def register(sub):
    p = sub.add_parser("target", help="Hermite structure of a multi-index target",
                       description="Hermite tensors C_alpha of a target g(z1..zk) (k <= 4), its "
                       "information exponent, leap index, first-order subspace and, per student, "
                       "the direction a second giant step adds (docs/theory.md (n)).")
    p.add_argument("expr", help='the target, an expression in z1..z4, e.g. "z1 + z1*z2"')
    p.add_argument("--order", type=int, default=3, help="highest tensor degree (default 3)")
    p.add_argument("--student", action="append", default=None,
                   help="a student activation for the second-step signal (repeatable; default: "
                        "none)")
    p.add_argument("--eta", type=float, default=2.0, help="learning rate of the first step (default 2)")
    p.add_argument("--alpha0", type=float, default=4.0, help="first-step samples per dimension (default 4)")
    p.add_argument("--dps", type=int, default=20, help="digits of the printed tensors (default 20)")
    p.add_argument("--steps", type=int, default=1,
                   help="giant steps T on fresh batches: with --student, the directions each step "
                        "reaches and the rank of the letters' spikes, from the T-step map "
                        "(docs/theory.md (p.3)); default 1")
    add_vocabulary(p)
    add_output(p)
    p.set_defaults(func=cmd_target)
