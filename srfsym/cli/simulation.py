"""``srfsym simulate``: the finite-size network or sRF model, with the theory beside it."""
from __future__ import annotations

import math

from .common import (SHARED_HELP, add_output, add_physics, emit_output, non_negative_int, out, status, table_row,
                     vocabulary_arg)
from .readout import _loss_kwargs, add_loss
from ..sweep.agreement import Z_LIMIT, agreement_warnings, z_score  # noqa: F401 (re-exported)


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
    kw = {} if voc is None else {"vocabulary": voc}
    if sim.train_loss is not None:      # a convex readout (docs/theory.md (m))
        kw.update(loss=sim.loss, noise=sim.noise, bias=sim.bias, label_rule=sim.label_rule)
    return [solve_srf(sim.student, sim.teacher, r, c, gamma, sim.lam, float(a), sim.beta, **kw)
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
        if sim.train_loss is not None:
            rows[-1].update(_convex_columns(sim, j, th))
        rows[-1]["z_score"] = z_score(rows[-1])
    return rows


def _convex_columns(sim, j, th):
    """The columns of a convex readout: the simulation's means and standard errors beside the
    theory (docs/theory.md (m.4)); the test / train errors of the row are MSEs."""
    cols = {"loss": sim.loss, "noise": sim.noise, "bias": sim.bias,
            "label_rule": sim.label_rule}
    for k, tk in (("classification_error", "classification_error"), ("train_loss", "train_loss"),
                  ("train_classification_error", "train_classification_error"),
                  ("output_bias", "bias")):
        cols[k] = _or_none(getattr(sim, k)[j])
        cols[k + "_sem"] = _or_none(getattr(sim, k + "_sem")[j])
        v = getattr(th, tk, None)
        cols["theory_" + k] = None if v is None else float(v)
    cols["classification_error_z_score"] = z_score(
        cols, "classification_error") if cols["classification_error"] is not None else None
    return cols


def cmd_simulate(args):
    from ..simulation.simulate import simulate
    res = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam, args.alpha,
                   d=args.d, beta=args.beta, seeds=args.seeds, model=args.model, seed=args.seed,
                   n_test=args.n_test, workers=args.workers,
                   shared_first_layer=args.shared_first_layer,
                   progress=not (args.json or args.csv or args.quiet),
                   vocabulary=vocabulary_arg(args), **_loss_kwargs(args))
    with status("the theory at the same parameters (docs/theory.md (f), (m))"):
        rows = simulation_rows(res)
    warns = agreement_warnings(rows)
    if not emit_output(args, rows, warnings=warns, details={"simulation": res.to_dict()}):
        out(res.summary())
        out(simulation_table(rows, res.seeds))
        for line in warning_lines(warns):
            out(line)


def warning_lines(warns, width=100):
    """The warnings as text lines, one screen wide."""
    import textwrap
    return [line for w in warns for line in textwrap.wrap(
        w, width, initial_indent="  warning: ", subsequent_indent="    ")]


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
    if rows and rows[0].get("loss") is not None:
        lines[0] = lines[0].replace("docs/theory.md (f)", "docs/theory.md (m)")
        lines[1] = lines[1].replace("  alpha     simulation", "  alpha     test MSE, simulation")
        for key, name in (("classification_error", "test classification error"),
                          ("train_loss", "training loss (penalty excluded)"),
                          ("train_classification_error", "training classification error")):
            if rows[0].get(key) is None:
                continue
            lines.append(f"  {name} (docs/theory.md (m.4)):")
            for row in rows:
                z = z_score(row, key)
                sem = row[key + "_sem"]
                spread = " (one seed)" if sem is None else f" +- {sem:.2g}"
                flag = "" if z is None else f"{z:+.1f}" + ("  <- > 3 s.e." if abs(z) > Z_LIMIT
                                                          else "")
                lines.append(f"  {row['alpha']:<8.4g}  {row[key]:.6f}{spread}"
                             f"    {row['theory_' + key]:.6f}   {flag}")
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
    p.add_argument("--seed", type=non_negative_int, default=0, help="master random seed")
    p.add_argument("--model", choices=["network", "srf"], default="network",
                   help="the two-layer network after the step, or the sRF model at the "
                        "formula's (r, c, gamma)")
    p.add_argument("--n-test", type=int, default=5000, help="fresh test points per seed")
    p.add_argument("--workers", type=int, default=None, help="cores to use (default: all)")
    p.add_argument("--shared-first-layer", action="store_true", help=SHARED_HELP)
    add_loss(p)
    add_output(p)
    p.set_defaults(func=cmd_simulate)
