r"""The priors of the dispatch table: a problem's bulk to its spectral side.

One builder per bulk kind (:data:`srfsym.theory.dispatch.PRIORS`), each returning a
:class:`~srfsym.theory.dispatch.Prior`-shaped tuple ``(params, spec, note, name)``:
``params = (r, c, gamma)`` on the channel side and the spectrum object.

- :func:`isotropic_prior`: ``c MP_beta`` (``"mp"``), one finite-``d`` sample (``"sample"``) or a
  spectrum object given by the caller, with the mapping's ``r, c, gamma`` (decimal strings at
  the working precision in mpmath) or those given directly (docs/theory.md (f), (h));
- :func:`step_prior`: the first layer realised at ``d`` from ``seed`` and its measured
  ``r, c, gamma`` (docs/theory.md (g.4)); with a vocabulary split by letter ((g.4.1));
- :func:`exact_prior`: the d -> infinity law of the step's bulk (docs/theory.md (g.5)); with a
  vocabulary the exact K-group law ((g.5.2)).

>>> spec = make_spectrum("mp", beta=1.0, c=1.0)
>>> spec.moments(1.0, 0.0).inv
1.0
"""
from __future__ import annotations

import numpy as np

from ..problem import Prior

__all__ = ["make_spectrum", "isotropic_prior", "step_prior", "exact_prior"]


def make_spectrum(spectrum="mp", beta=1.0, c=1.0, d=None, seed=0, gamma=None):
    """The spectral back end: ``"mp"`` (deterministic) or ``"sample"`` (finite d, seeded);
    a spectrum object is returned as it is."""
    from .. import spectrum as spec  # the back ends' public names
    if not isinstance(spectrum, str):
        return spectrum
    if spectrum == "mp":
        return spec.MarchenkoPastur(beta=beta, c=c)
    if spectrum == "sample":
        if d is None:
            raise ValueError("spectrum='sample' needs the dimension d")
        from ...core.checks import check_memory, scalar_like
        d = scalar_like("d", d)
        if isinstance(d, float) and d.is_integer():
            d = int(d)
        if not isinstance(d, (int, np.integer)) or d < 2:
            raise ValueError(f"the sampled spectrum needs an integer dimension d >= 2, got {d!r}")
        p = max(1, round(float(beta) * d))
        # Gaussian p x d rows, the d x d Gram matrix and its eigenvectors, workspace
        check_memory(8.0 * (2 * p * d + 3 * max(p, d) ** 2),
                     f"the sampled spectrum at d = {d}, p = {p}")
        return spec.SampledSpectrum(d=int(d), beta=beta, c=c, seed=seed,
                                    **({"zeta": "e1"} if gamma == 0 else {}))
    raise ValueError(f"unknown spectrum {spectrum!r}: use 'mp' or 'sample'")


def _prior(params, spec, note=None, name=None):
    return Prior(params, spec, note, name)


def isotropic_prior(problem, mapping):
    """The isotropic bulk (or a spectrum object): the mapping's or the given ``r, c, gamma``;
    the spectrum is built for the uniform readout (the K-group solvers build their own
    block-Wishart equivalent, or read a spectral side split by letter)."""
    if problem.target == "multi":    # the alignment vector; the solver builds its spectrum
        return _prior((mapping.spike_strength, mapping.bulk_variance,
                       tuple(float(g) for g in mapping.alignment_vector)), None)
    if mapping is None:
        params = (problem.r, problem.c, problem.gamma)
    elif problem.dps is None:
        params = (mapping.spike_strength, mapping.bulk_variance, mapping.alignment)
    else:  # the mapping at the working precision, not its double-precision image
        params = tuple(v.decimal(int(problem.dps) + 10) for v in mapping.values().values())
    if problem.readout == "groups":
        return _prior(params, problem.spectrum if not isinstance(problem.spectrum, str)
                      else None)
    r, c, gamma = (float(v) for v in params)
    spec = make_spectrum(problem.spectrum, beta=float(problem.beta), c=c, d=problem.d,
                         seed=problem.seed, gamma=gamma)
    return _prior(params, spec)


def step_prior(problem, mapping):
    """``bulk="step"``: the realised first layer at ``d`` (its measured ``r, c, gamma``)."""
    from .step_bulk import step_bulk_spectrum
    alpha0, eta, beta = float(problem.alpha0), float(problem.eta), float(problem.beta)
    d, seed, voc = problem.d, problem.seed, problem.vocabulary
    if voc is not None:
        from .step_bulk_groups import step_group_bulk
        spec = step_group_bulk(problem.student, problem.teacher, alpha0, eta, d, beta, seed, voc)
        rj = ", ".join(f"{v:.6g}" for v in spec.group_r)
        cj = ", ".join(f"{v:.6g}" for v in spec.group_c)
        note = (f"bulk 'step': the realised first layer with {voc} at d = {spec.d}, p = "
                f"{spec.p}, seed = {seed}, split by letter (measured r_j = {rj}, c_j = {cj}, "
                f"gamma = {spec.gamma:.6g}; the K-group sums on the realised Omega, "
                "docs/theory.md (g.4))")
        return _prior((spec.r, spec.c, spec.gamma), spec, note, "step")
    spec = step_bulk_spectrum(problem.student, problem.teacher, alpha0, eta, d, beta, seed)
    data = spec.data
    note = (f"bulk 'step': the realised first layer at d = {data.d}, p = {data.p}, seed = {seed} "
            f"(its measured r = {data.r:.6g}, c = {data.c:.6g}, gamma = {data.gamma:.6g}; "
            "docs/theory.md (g.4))")
    return _prior((data.r, data.c, data.gamma), spec, note, "step")


def _check_exact_variances(student, teacher, alpha0, eta, mapping, voc):
    """Refuse, before the exact law's work, a bulk variance the channel's coefficients cannot
    take (the isotropic bulk's message): ``c``, or with a vocabulary each letter's ``c_j`` (the
    uniform step's at learning rate ``|omega_j| eta``, docs/theory.md (k.1))."""
    from ...symbolic.cget import cget_coefficients
    from ...step.mapping import srf_mapping
    cs = [float(mapping.bulk_variance)]
    if voc is not None:
        cs = [float(srf_mapping(student, teacher, abs(float(w)) * float(eta), alpha0)
                    .bulk_variance) for w in voc.letters]
    cget_coefficients(student)._validate(0.0, 0.0, np.array(cs))


def exact_prior(problem, mapping):
    """``bulk="exact"``: the mapping's deterministic ``(r, c, gamma)`` on the channel side
    (``c = E D`` of the exact law, docs/theory.md (g.5)); with a vocabulary the exact K-group
    prior of docs/theory.md (g.5.2)."""
    alpha0, eta = float(problem.alpha0), float(problem.eta)
    voc = problem.vocabulary
    _check_exact_variances(problem.student, problem.teacher, alpha0, eta, mapping, voc)
    if voc is not None:
        from .exact_bulk_groups import exact_group_bulk
        spec = exact_group_bulk(problem.student, problem.teacher, alpha0, eta, voc)
        cj = ", ".join(f"{v:.6g}" for v in spec.group_c)
        note = (f"bulk 'exact': the d -> infinity law of the step's bulk with {voc} "
                f"(docs/theory.md (g.5.2)), E ell_j = c_j = {cj}; the mapping's r, c, gamma on "
                f"the channel side; {spec.rule.nodes} contour nodes (rule error "
                f"{spec.rule.error:.1e})")
        return _prior((spec.r, spec.c, spec.gamma), spec, note, "exact")
    from .exact_bulk import exact_bulk_spectrum
    spec = exact_bulk_spectrum(problem.student, problem.teacher, alpha0, eta,
                               float(problem.beta))
    r, c, gamma = (float(mapping.spike_strength), float(mapping.bulk_variance),
                   float(mapping.alignment))
    mean = spec.bulk_moments()[0]
    # E D = c (docs/theory.md (g.5)); the law's residual quadrature is good to ~1e-9, a wrong
    # mapping (mu0_correction=False) is off by percents
    if abs(mean / c - 1) > 1e-6:
        raise ValueError(f"bulk='exact': the law's mean E D = {mean:.12g} "
                         f"differs from the mapping's c = {c:.12g}; the law is derived with the "
                         "mu0 correction of the residuals (keep mu0_correction=True)")
    note = (f"bulk 'exact': the d -> infinity law of the step's bulk (docs/theory.md (g.5)), "
            f"E D = {mean:.12g} = c; the mapping's r, c, gamma on the channel side")
    if not spec.exact_directions:
        note += ("; the F, H sums keep the isotropic rules F -> c, H -> D of docs/theory.md (g) "
                 "(the exact direction sums of (g.5) need eta > 0)")
    return _prior((r, c, gamma), spec, note, "exact")
