r"""The dispatch table: a :class:`~srfsym.theory.problem.Problem` to its prior and its solver.

:func:`solve_problem` reads the problem's key ``(readout, loss, bulk, precision, target,
steps)``
(:attr:`Problem.key <srfsym.theory.problem.Problem.key>`) off three tables, with no chain of
``if`` branches:

- :data:`REFUSALS`: the combinations that are refused, each with its reason (a pattern over
  the key, ``None`` matching anything);
- :data:`PRIORS`: the bulk to the spectral side (``(r, c, gamma)`` on the channel side and
  the spectrum object, docs/theory.md (f), (g.4), (g.5)); after several steps
  (``(bulk, "several")``) the T-step map's last state (docs/theory.md (p.2));
- :data:`SOLVERS`: ``(readout, loss, precision, target, steps)`` to the solver running the
  engine (:mod:`srfsym.theory.engine`) with that channel (square or convex, uniform or K
  groups; a single-index teacher or a multi-index target, docs/theory.md (n); after several
  steps the vector-kappa channel of docs/theory.md (p.4)).

Adding an axis is adding a field to the problem, a component to its key and rows to these
tables (:func:`register_solver`, :func:`register_prior`, :func:`register_refusal`).
:func:`combinations` lists every cell with what runs it or why it is refused
(docs/combinations.md is generated from it).

>>> from srfsym.theory.problem import Problem
>>> res = solve_problem(Problem("tanh", "sin", 0.1, 1.0, alpha0=20, eta=3))
>>> round(res.test_error, 6)
0.041604
>>> refusal(Problem("tanh", "sign", 0.1, 1.0, alpha0=2, eta=3, loss="logistic", dps=30))
... # doctest: +ELLIPSIS
'a loss other than the plain square loss ... drop dps (docs/theory.md (m))'
"""
from __future__ import annotations

import time
from . import several_steps_convex, several_steps_error, solvers
from .problem import Options, Prior, Problem, check_readout_point
from .spectral import priors

__all__ = ["Prior", "solve_problem", "build_prior", "refusal", "combinations",
           "combinations_markdown", "ENTRY_POINTS", "SOLVERS",
           "PRIORS", "REFUSALS", "register_solver", "register_prior", "register_refusal",
           "READOUTS", "LOSSES", "BULK_KINDS", "PRECISIONS", "TARGETS",
           "STEPS"]

READOUTS = ("uniform", "groups")
LOSSES = ("square", "convex")
BULK_KINDS = ("mp", "sample", "step", "exact")
PRECISIONS = ("double", "mpmath")
TARGETS = ("single", "multi")
STEPS = ("one", "several")


#: (pattern over (readout, loss, bulk, precision, target), reason); the first match refuses
#: (a shorter pattern matches any value of the components it does not name; a callable reason
#: may return None: that problem is not refused by the row).  Add rows with
#: :func:`register_refusal` (it keeps the per-key lookup current).
REFUSALS: list = []
#: bulk kind -> ``builder(problem, mapping) -> Prior``
PRIORS: dict = {}
#: (readout, loss, precision) -> ``solver(problem, prior, options, start) -> result``
SOLVERS: dict = {}


def register_refusal(pattern, reason):
    """Refuse the keys matching ``pattern`` (a tuple over the key, ``None`` for any value;
    ``reason`` a string, or a callable of the problem giving it)."""
    REFUSALS.append((tuple(pattern), reason))
    _MATCHING.clear()


#: key -> the reasons of REFUSALS whose pattern matches it, in order (filled on use)
_MATCHING: dict = {}


def register_prior(bulk, builder, steps="one"):
    """``builder(problem, mapping) -> Prior`` for the bulk kind ``bulk`` (after ``steps``
    ``"one"`` or ``"several"`` giant steps)."""
    PRIORS[bulk if steps == "one" else (bulk, steps)] = builder


def register_solver(readout, loss, precision, solver, target="single", steps="one"):
    """``solver(problem, prior, options, start) -> result`` for that row of the table."""
    SOLVERS[(readout, loss, precision, target, steps)] = solver


def _matches(pattern, key):
    """A pattern over the first ``len(pattern)`` components of the key (a shorter pattern
    matches any value of the components it does not name)."""
    return all(p is None or (v in p if isinstance(p, tuple) else v == p)
               for p, v in zip(pattern, key))


def _solver_key(key):
    """The solver's part of a problem key: (readout, loss, precision, target, steps)."""
    return (key[0], key[1], key[3], key[4], key[5])


def _no_solver(key):
    return (f"no solver for readout {key[0]}, loss {key[1]}, precision {key[3]}, target "
            f"{key[4]}, {key[5]} step(s)")


def refusal(problem: Problem, options: Options | None = None):
    """The reason the problem is refused, or ``None`` if a solver runs it.  A reason that is
    a callable may return ``None``: that row does not refuse this problem (the table's cell
    runs only some problems, :func:`combinations` names the others)."""
    key = problem.key
    matching = _MATCHING.get(key)
    if matching is None:
        matching = _MATCHING[key] = [r for p, r in REFUSALS if _matches(p, key)]
    for reason in matching:
        why = reason(problem, options) if callable(reason) else reason
        if why is not None:
            return why
    if _solver_key(key) not in SOLVERS:
        return _no_solver(key)
    return None


def build_prior(problem: Problem, mapping=None) -> Prior:
    """The spectral side of ``problem`` (the step's mapping computed if not given)."""
    if mapping is None:
        mapping = problem.mapping()
    kind = problem.bulk_kind if isinstance(problem.spectrum, str) else "given"
    return PRIORS[kind if problem.step_kind == "one" else (kind, problem.step_kind)](problem,
                                                                                    mapping)


def solve_problem(problem: Problem, options: Options | None = None, *, start=None,
                  prior: Prior | None = None, mapping=None):
    """Solve ``problem`` (``options``: how; ``start``: a warm start that does not change the
    answer; ``prior``/``mapping``: reused from an earlier point of the same family)."""
    options = Options() if options is None else options
    if problem.alpha is None or problem.lam is None:    # a family: one point is solved
        check_readout_point(problem.alpha, problem.lam, problem.beta)
    reason = refusal(problem, options)
    if reason is not None:
        raise ValueError(reason)
    t0 = time.perf_counter()
    if mapping is None and problem.alpha0 is not None:
        mapping = problem.mapping()
    if prior is None:
        prior = build_prior(problem, mapping)
    key = problem.key
    res = SOLVERS[_solver_key(key)](problem, prior, options, start)
    if mapping is not None:
        res.mapping = mapping
        res.notes.extend(mapping.notes)
    if prior.note is not None:
        res.notes.append(prior.note)
    if prior.name is not None:
        res.spectrum = prior.name
    if key[:2] == ("uniform", "square"):
        res.seconds = time.perf_counter() - t0
    return res


_MP_ONLY = ("with a readout vocabulary the fixed point is solved with the deterministic "
            "spectrum ('mp'), in double precision (no dps), by the structured method")


def _group_side_precision(problem, options=None):
    """the K-group channel and the block-Wishart (or split-bulk) prior are written with
    double-precision linear algebra (eigh, inverse, solve)"""
    from .interfaces import GroupSpectralSide
    if isinstance(problem.spectrum, GroupSpectralSide) or problem.bulk != "isotropic":
        name = problem.spectrum.name if problem.bulk == "isotropic" else problem.bulk
        return (f"the {name} step bulk with a vocabulary is solved in double precision "
                "(no dps) by the structured method")
    return _MP_ONLY


# ---- the tables --------------------------------------------------------------------------
register_refusal((None, None, None, "mpmath", None, "several"),
                 "several giant steps are solved in double precision (the T-step map's Gaussian "
                 "expectations and the vector-kappa rule are double-precision tensor "
                 "Gauss-Hermite rules): drop dps (docs/theory.md (p.4))")
register_refusal((None, None, ("sample", "given", "step", "exact"), None, None, "several"),
                 "after several giant steps the bulk is the T-step map's: isotropic per letter "
                 "with the map's variances c_j (the 'mp' spectrum); a sampled, realised or exact "
                 "bulk after T > 1 steps is not derived (docs/theory.md (p.4), (p.6))")
register_refusal((None, "convex", None, "mpmath"),
                 "a loss other than the plain square loss (or label noise, or a bias) is solved "
                 "in double precision (numerical proximal step): drop dps (docs/theory.md (m))")
register_refusal((None, None, "exact", "mpmath"),
                 "bulk='exact' is solved in double precision only (its law comes from a "
                 "numerical fixed point): drop dps")
register_refusal(("groups", None, ("sample", "given"), None),
                 "with a readout vocabulary the fixed point is solved with the deterministic "
                 "spectrum ('mp'), the realised step bulk (bulk='step') or its exact law "
                 "(bulk='exact'): the K-group prior needs the bulk split by letter, which a "
                 "sampled isotropic spectrum does not carry")
register_refusal(("groups", None, None, "mpmath"), _group_side_precision)


def _non_odd_groups(problem, options=None):
    """a readout vocabulary with a non-odd student after one step is taken by the realised
    step bulk only (bulk='step': every letter's r_j, c_j measured); the isotropic and exact
    bulks' per-letter formulas assume mu0 = 0 (docs/theory.md (k.1), (g.5.2))"""
    from ..step.vocabulary import check_student
    try:
        check_student(problem.student, problem.vocabulary)
    except ValueError as exc:      # the solvers' own refusal, with its reason
        return str(exc)
    return None


_non_odd_groups.partial = True
register_refusal(("groups", None, ("mp", "exact"), None, "single", "one"), _non_odd_groups)

for _bulk in ("mp", "sample", "given"):
    register_prior(_bulk, priors.isotropic_prior)
register_prior("step", priors.step_prior)
register_prior("exact", priors.exact_prior)

register_solver("uniform", "square", "double", solvers.ridge)
register_solver("uniform", "square", "mpmath", solvers.ridge_mpmath)
register_solver("groups", "square", "double", solvers.ridge_groups)
register_solver("uniform", "convex", "double", solvers.convex)
register_solver("groups", "convex", "double", solvers.convex_groups)

# ---- multi-index targets (docs/theory.md (n)) ----------------------------------------------
register_refusal((None, None, ("step", "exact"), None, "multi"),
                 "a multi-index target is solved with the isotropic bulk: the step's bulk "
                 "(bulk = 'step' or 'exact', docs/theory.md (g.4), (g.5)) is derived for the "
                 "step on a single-index teacher (docs/theory.md (n))")
register_refusal((None, None, None, "mpmath", "multi"),
                 "a multi-index target's conditional moments h, h1, h2 come from a "
                 "double-precision quadrature over its k directions (docs/theory.md (n)): "
                 "drop dps")


def _multi_index_loss(problem, options=None):
    """Bernoulli labels: not derived for a multi-index target (its labels are y = g(z); a
    classification loss takes a target with values +-1 such as sign(z1 + z1*z2),
    docs/theory.md (n.8))"""
    p = problem
    if p.label_rule == "teacher":
        return None
    return (f"multi-index target {getattr(p.teacher, 'name', p.teacher)!r}, label_rule = "
            f"{p.label_rule!r}: " + " ".join(_multi_index_loss.__doc__.split()))


_multi_index_loss.partial = True
register_refusal((None, "convex", None, None, "multi"), _multi_index_loss)
register_solver("uniform", "square", "double", solvers.multi_index_ridge, target="multi")
register_solver("groups", "square", "double", solvers.multi_index_groups, target="multi")
register_solver("uniform", "convex", "double", solvers.multi_index_convex, target="multi")
register_solver("groups", "convex", "double", solvers.multi_index_convex_groups, target="multi")

# ---- several giant steps (docs/theory.md (p)): the T-step map and the vector-kappa channel --
register_prior("mp", several_steps_error.steps_prior, steps="several")
for _readout in READOUTS:
    for _target in TARGETS:
        register_solver(_readout, "square", "double", several_steps_error.ridge_steps,
                        target=_target, steps="several")
        register_solver(_readout, "convex", "double", several_steps_convex.convex_steps,
                        target=_target, steps="several")


#: entry points beyond the single solve: name -> (how it runs a cell, refusal of a cell or None)
def _grid_how(key, solver):
    return "batch" if _solver_key(key) == ("uniform", "square", "double", "single", "one") else \
        "point by point"


def _optimal_lambda_refuses(key):
    return ("it minimises the ridge's test error over lambda (square loss); for other losses "
            "scan lambda with solve_grid" if key[1] == "convex" else None)


ENTRY_POINTS = {
    "solve": (lambda key, solver: solver, lambda key: None),
    "solve_grid": (_grid_how, lambda key: None),
    "learning_curve": (lambda key, solver: "point by point", lambda key: None),
    "optimal_lambda": (lambda key, solver: "point by point", _optimal_lambda_refuses),
    "sweep": (_grid_how, lambda key: None),
}


def combinations():
    """Every cell ``(readout, loss, bulk, precision, target, steps)`` with its solver or its reason,
    and what each entry point does with it (``partial``: the reason some problems of a cell
    that runs are refused, or ``None``).

    >>> cells = combinations()
    >>> cell = cells[("uniform", "square", "mp", "double", "single", "one")]
    >>> cell["solver"], cell["solve_grid"]
    ('ridge', 'batch')
    """
    import itertools
    return {key: _cell(key) for key in itertools.product(READOUTS, LOSSES, BULK_KINDS,
                                                          PRECISIONS, TARGETS, STEPS)}


def _cell(key):
    reason, partial = None, None
    for pattern, why in REFUSALS:
        if not _matches(pattern, key):
            continue
        text = " ".join(why.__doc__.split()) if callable(why) else why
        if getattr(why, "partial", False):
            partial = partial or text
            continue
        reason = text
        break
    solver = SOLVERS.get(_solver_key(key))
    if reason is None and solver is None:
        reason = _no_solver(key)
    label = getattr(solver, "label", None) if reason is None else None
    cell = {"solver": label, "reason": reason, "partial": None if reason else partial}
    for name, (how, refuses) in ENTRY_POINTS.items():
        why = reason or refuses(key)
        cell[name] = how(key, label) if why is None else None
        cell[name + "_reason"] = why
    return cell


def combinations_markdown() -> str:
    """The combination table as the text of docs/combinations.md (generated; a test keeps
    the file current)."""
    lines = [
        "# Combinations",
        "",
        "Generated from the dispatch table (`srfsym.theory.dispatch.combinations`); "
        "`tests/test_combinations.py` fails when this page is stale.  Regenerate with",
        "",
        "```",
        "python -c \"from srfsym.theory.dispatch import combinations_markdown as m; "
        "open('docs/combinations.md', 'w').write(m())\"",
        "```",
        "",
        "A problem's key is (readout, loss, bulk, precision, target, steps): readout `uniform` or "
        "`groups` (a vocabulary with K > 1); loss `square` (the plain ridge) or `convex` (any "
        "other loss, label noise, a bias or Bernoulli labels); bulk `mp` (isotropic, "
        "Marchenko-Pastur), `sample` (isotropic, one finite-d sample), `step` (the realised "
        "first layer), `exact` (its d -> infinity law); precision `double` or `mpmath` "
        "(`dps`); target `single` (a single-index teacher) or `multi` (a multi-index target "
        "in z1..zk, any k the parser takes, docs/theory.md (n)); steps `one` giant step (the "
        "sRF mapping) or `several` (`steps = T > 1`: the T-step map and the vector-kappa "
        "channel, docs/theory.md (p)).  Each cell "
        "says which solver runs it and how each entry point runs it (`batch`: one vectorised "
        "solve of the whole grid; `point by point`: the single solve at each point, the "
        "bulk built once), or the reason it is refused (numbered below the table; `only`: "
        "the cell runs, but refuses some of its problems for that reason).  The "
        "command line runs the same cells: `error` as `solve`, `curve` as `learning_curve` "
        "(or `optimal_lambda` with `--optimize-lambda`), `grid` as `solve_grid`, `sweep` as "
        "`sweep`.",
        "",
        "| readout | loss | bulk | precision | target | steps | solve | solve_grid | "
        "learning_curve | optimal_lambda | sweep |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    reasons = []

    def number(why):
        if why not in reasons:
            reasons.append(why)
        return reasons.index(why) + 1
    for key, cell in combinations().items():
        row = list(key)
        for name in ENTRY_POINTS:
            if cell[name] is None:
                row.append(f"refused ({number(cell[name + '_reason'])})")
            elif name == "solve":
                row.append(cell["solver"] + (f" (only ({number(cell['partial'])}))"
                                             if cell["partial"] else ""))
            else:
                row.append(cell[name])
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Reasons:", ""]
    lines += [f"{i + 1}. {why}" for i, why in enumerate(reasons)]
    return "\n".join(lines) + "\n"
