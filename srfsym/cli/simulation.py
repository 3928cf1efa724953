"""``srfsym simulate``: the finite-size network or sRF model, with the theory beside it."""
from __future__ import annotations

import math

from .common import (SHARED_HELP, CLIError, add_output, add_physics, emit_output,
                     non_negative_int, out, status, table_row, vocabulary_arg,
                     warn_if_isotropic_is_off)
from .readout import _loss_kwargs, add_loss, check_readout_first
from ..sweep.agreement import Z_LIMIT, agreement_warnings, z_score  # noqa: F401 (re-exported)


class _NoTheory:
    """Stands for the theory where the dispatch table refuses one beside this simulation (e.g.
    a non-odd student with a vocabulary on the isotropic or exact bulk): every value absent,
    ``reason`` the refusal's."""
    r = c = gamma = test_error = train_error = None

    def __init__(self, reason):
        self.reason = reason


def _theory_refusal(sim, bulk=None):
    """The dispatch table's reason for refusing the theory at the network simulation's
    parameters on ``bulk`` (:func:`srfsym.theory.dispatch.refusal` of the problem
    :func:`_theory` solves), ``None`` when it runs (and for the sRF model, whose theory is
    the sRF fixed point at its own ``r, c, gamma``)."""
    if sim.model != "network":
        return None
    from ..theory.dispatch import refusal
    from ..theory.problem import Problem
    voc = getattr(sim, "vocabulary", None)
    if voc is not None:
        from ..step.vocabulary import vocabulary
        voc = vocabulary(voc["letters"], voc["weights"])
    kw = {} if sim.train_loss is None else dict(loss=sim.loss, noise=sim.noise, bias=sim.bias,
                                                 label_rule=sim.label_rule)
    return refusal(Problem(sim.student, sim.teacher, sim.lam, float(sim.alphas[0]), sim.beta,
                           alpha0=sim.alpha0, eta=sim.eta, vocabulary=voc,
                           steps=getattr(sim, "steps", 1), **(bulk or {}), **kw))


def _theory(sim, bulk=None):
    """The d -> infinity theory at the simulation's parameters, one result per alpha: on the
    isotropic bulk (``bulk=None``), or on ``bulk``, the keywords of :func:`srfsym.solve`
    (``{"bulk": "exact"}``, or ``{"bulk": "step", "d": D, "seed": S}``, docs/theory.md (g.4),
    (g.5)) -- the theory displayed is the one compared with; :class:`_NoTheory` with the
    reason where the dispatch table refuses it."""
    reason = _theory_refusal(sim, bulk)
    if reason is not None:
        return [_NoTheory(reason) for _ in sim.alphas]
    from ..theory.fixed_point import learning_curve, solve_srf
    from ..step.mapping import srf_mapping
    voc = getattr(sim, "vocabulary", None)
    if voc is not None:
        from ..step.vocabulary import vocabulary
        voc = vocabulary(voc["letters"], voc["weights"])
    from ..theory.fixed_point import multi_index_teacher
    if getattr(sim, "steps", 1) > 1:     # the T-step map and the vector-kappa channel, (p.4)
        kw = {} if sim.train_loss is None else dict(loss=sim.loss, noise=sim.noise,
                                                    bias=sim.bias, label_rule=sim.label_rule)
        return learning_curve(sim.student, sim.teacher, sim.alpha0, sim.eta, sim.lam,
                              [float(a) for a in sim.alphas], sim.beta, vocabulary=voc,
                              steps=sim.steps, **(bulk or {}), **kw).results
    if multi_index_teacher(sim.teacher):     # multi-index hook (issue 28): docs/theory.md (n)
        from ..theory.multi_index import solve_multi_index
        kw = {} if sim.train_loss is None else {"noise": sim.noise, "bias": sim.bias,
                                                 "loss": sim.loss}
        return [solve_multi_index(sim.student, sim.teacher, sim.alpha0, sim.eta, sim.lam,
                                  float(a), sim.beta, vocabulary=voc, **kw) for a in sim.alphas]
    kw = {} if voc is None else {"vocabulary": voc}
    if sim.train_loss is not None:      # a convex readout (docs/theory.md (m))
        kw.update(loss=sim.loss, noise=sim.noise, bias=sim.bias, label_rule=sim.label_rule)
    if bulk:
        return learning_curve(sim.student, sim.teacher, sim.alpha0, sim.eta, sim.lam,
                              [float(a) for a in sim.alphas], sim.beta, **bulk, **kw).results
    if sim.model == "srf":
        r, c, gamma = sim.r, sim.c, sim.gamma
    else:
        m = srf_mapping(sim.student, sim.teacher, sim.eta, sim.alpha0)
        r, c, gamma = m.r, m.c, m.gamma
    return [solve_srf(sim.student, sim.teacher, r, c, gamma, sim.lam, float(a), sim.beta, **kw)
            for a in sim.alphas]


def theory_label(bulk=None, steps=1):
    """What the theory column of a comparison is (its bulk, docs/theory.md (g); after
    ``steps > 1`` the T-step map's, (p.4)).

    >>> theory_label({"bulk": "exact"})
    'theory (d -> infinity, exact law of the step bulk, docs/theory.md (g.5))'
    """
    if steps > 1:
        return (f"theory (d -> infinity, the {steps}-step map, isotropic bulk per letter, "
                "docs/theory.md (p.4))")
    name = (bulk or {}).get("bulk", "isotropic")
    if (bulk or {}).get("spectrum") == "sample":
        return (f"theory (isotropic bulk sampled at d = {bulk.get('d')}, seed "
                f"{bulk.get('seed')}, docs/theory.md (h))")
    return {"isotropic": "theory (d -> infinity, isotropic bulk c MP, docs/theory.md (f))",
            "exact": "theory (d -> infinity, exact law of the step bulk, docs/theory.md (g.5))",
            "step": f"theory (step bulk realised at d = {(bulk or {}).get('d')}, seed "
                    f"{(bulk or {}).get('seed')}, docs/theory.md (g.4))"}[name]


def model_caveat(bulk=None):
    """The reason, other than finite size, for a simulation off the theory: the isotropic bulk
    compared with where the library's isotropic-bulk check warned (docs/theory.md (g.4));
    ``None`` otherwise."""
    from .common import all_warnings
    if (bulk or {}).get("bulk", "isotropic") != "isotropic" or (bulk or {}).get("spectrum"):
        return None
    if any("isotropic bulk" in w and "is off here" in w for w in all_warnings()):
        return ("the theory compared with uses the isotropic bulk, which is off at this step "
                "(see the warning on the bulk): the gap is the model's, not finite size; "
                "compare with --bulk exact (the d -> infinity law of the step's bulk, "
                "docs/theory.md (g.5))")
    return None


def _or_none(x):
    x = float(x)
    return None if math.isnan(x) else x


def simulation_rows(sim, theory=None, bulk=None):
    """Rows of the common output schema (cli/common.py): one per alpha, the simulation's mean
    and standard error over seeds beside the theory's value at the same parameters (on the
    bulk ``bulk``, see :func:`_theory`; ``theory_bulk`` names it)."""
    theory = _theory(sim, bulk) if theory is None else theory
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
            shared_first_layer=bool(sim.settings.get("shared_first_layer", False)),
            theory_bulk=(bulk or {}).get("bulk", "sampled" if (bulk or {}).get("spectrum")
                                           == "sample" else "isotropic"),
            theory_refused=getattr(th, "reason", None)))
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


def _simulate_bulk(args):
    """``--bulk`` of ``simulate``: the keywords of the theory compared with (``None``: the
    isotropic bulk; then the isotropic-bulk check runs first, as in ``srfsym error``)."""
    if args.bulk == "isotropic":
        if args.model == "network":      # the sRF model's bulk is c MP by construction
            warn_if_isotropic_is_off(args)
        return None
    if args.model != "network":
        raise CLIError(f"--bulk {args.bulk} is the trained network's bulk: use it with "
                       "--model network")
    if args.steps > 1:      # refused before the simulation runs, not after
        raise CLIError(f"--bulk {args.bulk} with --steps {args.steps}: after several steps the "
                       "theory's bulk is the T-step map's (isotropic per letter); a realised or "
                       "exact bulk after T > 1 steps is not derived (docs/theory.md (p.4))")
    if args.bulk == "step":
        if args.seeds != 1 or args.shared_first_layer:
            raise CLIError("--bulk step pairs the theory with the first layer of one seed: use "
                           "--seeds 1 (the layer of --seed), or --bulk exact for several seeds")
        return {"bulk": "step", "d": args.d, "seed": args.seed}
    return {"bulk": "exact"}


def cmd_simulate(args):
    from ..simulation.simulate import simulate
    check_readout_first(args)
    bulk = _simulate_bulk(args)
    res = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam, args.alpha,
                   d=args.d, beta=args.beta, seeds=args.seeds, model=args.model, seed=args.seed,
                   n_test=args.n_test, workers=args.workers,
                   shared_first_layer=args.shared_first_layer,
                   progress=not (args.json or args.csv or args.quiet),
                   vocabulary=vocabulary_arg(args), steps=args.steps, **_loss_kwargs(args))
    label = theory_label(bulk, args.steps)
    reason = _theory_refusal(res, bulk)
    if reason is None:
        with status(f"the {label} at the same parameters"):
            rows = simulation_rows(res, bulk=bulk)
    else:       # nothing to compute: say so, and why, where the computation would be announced
        from .common import LOG
        LOG.info(f"the {label} is refused here: {reason}")
        rows = simulation_rows(res, theory=[_NoTheory(reason) for _ in res.alphas], bulk=bulk)
    if rows and rows[0].get("classification_error") is not None:   # a classifier's rows
        from .classification import lead_with_classification
        rows = [lead_with_classification(row) for row in rows]
    warns = agreement_warnings(rows, model_caveat(bulk))
    if (ge := res.gaussian_equivalence_warning()) is not None:
        warns.append(ge)
    if not emit_output(args, rows, warnings=warns, details={"simulation": res.to_dict()}):
        out(res.summary())
        out(simulation_table(rows, res.seeds, theory_label(bulk, args.steps)))
        for line in warning_lines(warns):
            out(line)


def warning_lines(warns, width=100):
    """The warnings as text lines, one screen wide."""
    import textwrap
    return [line for w in warns for line in textwrap.wrap(
        w, width, initial_indent="  warning: ", subsequent_indent="    ")]


def simulation_table(rows, seeds, label=None):
    """Text table: simulation (mean +- s.e.) beside the theory (``label``: which, see
    :func:`theory_label`), and the gap in s.e. (or the reason the theory is refused)."""
    import textwrap
    lines = [f"  {label or theory_label()} beside the simulation "
             f"(mean +- standard error over {seeds} seeds):",
             "  alpha     simulation            theory       (sim - theory)/s.e."]
    for row in rows:
        z = z_score(row)
        spread = f" +- {row['test_error_sem']:.2g}" if row['test_error_sem'] is not None \
            else " (one seed)"
        if row["theory_test_error"] is None:
            lines[0] = "\n".join(textwrap.wrap(
                f"no theory beside this simulation: the {label or theory_label()} is refused: "
                + (row.get("theory_refused") or "none computed"), 100, initial_indent="  ",
                subsequent_indent="    "))
            lines.append(f"  {row['alpha']:<8.4g}  {row['test_error']:.6f}{spread}"
                         "    refused")
            continue
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
    p.add_argument("--seeds", type=int, default=8, help="independent repetitions (fewer than "
                   "5 give standard errors that are themselves unreliable)")
    p.add_argument("--seed", type=non_negative_int, default=0, help="master random seed")
    p.add_argument("--model", choices=["network", "srf"], default="network",
                   help="the two-layer network after the step, or the sRF model at the "
                        "formula's (r, c, gamma)")
    p.add_argument("--n-test", type=int, default=5000, help="fresh test points per seed")
    p.add_argument("--workers", type=int, default=None, help="cores to use (default: all)")
    p.add_argument("--shared-first-layer", action="store_true", help=SHARED_HELP)
    p.add_argument("--steps", type=int, default=1,
                   help="giant steps T, each on a fresh batch of n0 = alpha0 d samples with the "
                        "full residual y - f_{t-1}(x) (docs/theory.md (p)); the teacher may then "
                        "be a multi-index target in z1..z4, e.g. 'z1 + z1*z2'")
    add_loss(p)
    p.add_argument("--bulk", choices=["isotropic", "step", "exact"], default="isotropic",
                   help="bulk of the theory compared with: 'isotropic' (c MP_beta, the papers' "
                   "model; default), 'exact' (the d -> infinity law of the trained layer's "
                   "bulk, docs/theory.md (g.5)) or 'step' (the first layer of this run's seed, "
                   "realised: a paired comparison; --seeds 1)")
    add_output(p)
    p.set_defaults(func=cmd_simulate)
