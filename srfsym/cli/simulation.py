"""``srfsym simulate``: the finite-size network or sRF model, with the theory beside it."""
from __future__ import annotations

import math

from .common import (SHARED_HELP, add_output, add_physics, emit_output, out, status, table_row,
                     vocabulary_arg)

#: |simulation - theory| beyond this many standard errors is reported
Z_LIMIT = 3.0
#: fewer seeds than this: the standard error itself is too rough to judge by
FEW_SEEDS = 5


def _theory(sim):
    """The d -> infinity theory at the simulation's parameters, one result per alpha."""
    from ..theory.fixed_point import solve_srf
    from ..step.mapping import srf_mapping
    voc = getattr(sim, "vocabulary", None)
    if voc is not None:
        from ..step.vocabulary import vocabulary
        voc = vocabulary(voc["letters"], voc["weights"])
    if sim.model == "srf":
        r, c, gamma = sim.r, sim.c, sim.gamma
    else:
        m = srf_mapping(sim.student, sim.teacher, sim.eta, sim.alpha0)
        r, c, gamma = m.r, m.c, m.gamma
    return [solve_srf(sim.student, sim.teacher, r, c, gamma, sim.lam, float(a), sim.beta,
                      **({} if voc is None else {"vocabulary": voc}))
            for a in sim.alphas]


def _or_none(x):
    x = float(x)
    return None if math.isnan(x) else x


def simulation_rows(sim, theory=None):
    """Rows of the common output schema (cli/common.py): one per alpha, the simulation's mean
    and standard error over seeds beside the theory's value at the same parameters."""
    theory = _theory(sim) if theory is None else theory
    rows = []
    for j, (a, th) in enumerate(zip(sim.alphas, theory)):
        rows.append(table_row(
            "simulation", sim.student, sim.teacher, alpha0=sim.alpha0, eta=sim.eta,
            lam=sim.lam, alpha=float(a), beta=sim.beta, r=th.r, c=th.c, gamma=th.gamma,
            test_error=float(sim.test_error[j]), test_error_sem=_or_none(sim.test_error_sem[j]),
            train_error=float(sim.train_error[j]),
            train_error_sem=_or_none(sim.train_error_sem[j]),
            theory_test_error=th.test_error, theory_train_error=th.train_error,
            model=sim.model, d=sim.d, p=sim.p, n=int(sim.n[j]), seeds=sim.seeds,
            shared_first_layer=bool(sim.settings.get("shared_first_layer", False))))
        rows[-1]["z_score"] = z_score(rows[-1])
    return rows


def z_score(row):
    """(simulation - theory) / standard error of a simulation row (``None`` without an error
    bar: one seed, or zero spread)."""
    sem = row.get("test_error_sem")
    if sem is None or not sem == sem or sem <= 0:
        return None
    return (row["test_error"] - row["theory_test_error"]) / sem


def _nice_up(x):
    """The smallest of 1, 2, 5 times a power of ten that is >= x."""
    e = 10 ** math.floor(math.log10(x))
    return int(next(m * e for m in (1, 2, 5, 10) if m * e >= x))


def agreement_warnings(rows):
    """Warnings on simulation rows against the theory: where |sim - theory| > 3 standard
    errors, with the size d at which a gap falling like 1/d would be inside 3 s.e. (the
    s.e. as it is now); with fewer than 5 seeds, that the standard error is itself rough.

    >>> row = {"alpha": 1.0, "d": 300, "seeds": 2, "test_error": 0.30,
    ...        "test_error_sem": 0.01, "theory_test_error": 0.25}
    >>> for w in agreement_warnings([row]): print(w)  # doctest: +NORMALIZE_WHITESPACE
    the simulation (d = 300) lies more than 3 standard errors from the theory at alpha = 1
    (+5.0 s.e.): a finite-size gap; it shrinks roughly like 1/d, so d >= 500 would bring it
    within 3 s.e. (more seeds alone do not)
    the standard errors come from 2 seeds: with fewer than 5 the standard error is itself
    unreliable (use --seeds 5 or more before judging the agreement)
    """
    out, bad, seeds = [], [], None
    for row in rows:
        if row.get("source") not in (None, "simulation"):
            continue
        seeds = row.get("seeds", seeds)
        z = z_score(row)
        if z is not None and abs(z) > Z_LIMIT:
            bad.append((row, z))
    if bad:
        d = bad[0][0]["d"]
        worst = max(abs(z) for _, z in bad)
        where = ", ".join(f"{r['alpha']:g} ({z:+.1f} s.e.)" for r, z in bad)
        out.append(f"the simulation (d = {d}) lies more than {Z_LIMIT:g} standard errors from "
                   f"the theory at alpha = {where}: a finite-size gap; it shrinks roughly "
                   f"like 1/d, so d >= {_nice_up(d * worst / Z_LIMIT)} would bring it within "
                   f"{Z_LIMIT:g} s.e. (more seeds alone do not)")
    if seeds is not None and 1 < seeds < FEW_SEEDS:
        out.append(f"the standard errors come from {seeds} seeds: with fewer than {FEW_SEEDS} "
                   f"the standard error is itself unreliable (use --seeds {FEW_SEEDS} or more "
                   "before judging the agreement)")
    return out


def cmd_simulate(args):
    from ..simulation.simulate import simulate
    res = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam, args.alpha,
                   d=args.d, beta=args.beta, seeds=args.seeds, model=args.model, seed=args.seed,
                   n_test=args.n_test, workers=args.workers,
                   shared_first_layer=args.shared_first_layer,
                   progress=not (args.json or args.csv or args.quiet),
                   vocabulary=vocabulary_arg(args))
    with status("the theory at the same parameters (docs/theory.md (f))"):
        rows = simulation_rows(res)
    warns = agreement_warnings(rows)
    if not emit_output(args, rows, warnings=warns, details={"simulation": res.to_dict()}):
        out(res.summary())
        out(simulation_table(rows, res.seeds))
        for w in warns:
            out(f"  warning: {w}")


def simulation_table(rows, seeds):
    """Text table: simulation (mean +- s.e.) beside the theory, and the gap in s.e."""
    lines = [f"  theory (d -> infinity, docs/theory.md (f)) beside the simulation "
             f"(mean +- standard error over {seeds} seeds):",
             "  alpha     simulation            theory       (sim - theory)/s.e."]
    for row in rows:
        z = z_score(row)
        spread = f" +- {row['test_error_sem']:.2g}" if z is not None else " (one seed)"
        flag = "" if z is None else f"{z:+.1f}" + ("  <- > 3 s.e." if abs(z) > Z_LIMIT else "")
        lines.append(f"  {row['alpha']:<8.4g}  {row['test_error']:.6f}{spread}"
                     f"    {row['theory_test_error']:.6f}   {flag}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# derive


def register(sub):
    p = sub.add_parser("simulate", help="finite-size simulation of the network or sRF model",
                       description="Simulate the real network (one giant step, then ridge) or "
                       "the sRF model at finite d, over independent seeds, with the theory "
                       "beside it (docs/theory.md (a), (c)).")
    add_physics(p)
    p.add_argument("--d", type=int, required=True, help="input dimension")
    p.add_argument("--seeds", type=int, default=3, help="independent repetitions")
    p.add_argument("--seed", type=int, default=0, help="master random seed")
    p.add_argument("--model", choices=["network", "srf"], default="network",
                   help="the two-layer network after the step, or the sRF model at the "
                        "formula's (r, c, gamma)")
    p.add_argument("--n-test", type=int, default=5000, help="fresh test points per seed")
    p.add_argument("--workers", type=int, default=None, help="cores to use (default: all)")
    p.add_argument("--shared-first-layer", action="store_true", help=SHARED_HELP)
    add_output(p)
    p.set_defaults(func=cmd_simulate)
