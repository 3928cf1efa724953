r"""Test error of the ridge readout after one step on a multi-index target (docs/theory.md (n)).

Conditionally on the spike coordinate kappa the target is ``h(kappa) + h1(kappa) . xi + rest``
with a *vector* h1 (:mod:`srfsym.symbolic.multi_teacher`).  The student's bulk is linear in the
coordinates orthogonal to the spike with a single readout vector, so its overlap with the
teacher's orthogonal directions is a vector psi, and the square-loss channel of
docs/theory.md (f) becomes

    eps(k) = h2 - 2 b h - 2 mu1 psi . h1 + b^2 + mu1^2 q1 + mu*^2 q2,
    psi^ = (alpha/sqrt beta) E[mu1 h1 w]   (a vector),

while the prior (isotropic bulk) sees psi^ through |psi^| and gives psi parallel to psi^.
The variance conjugates (V1, V2) and hence ``w = 1/(1 + V)`` do not depend on the labels, so
psi^ has the fixed direction ``e = E[mu1 w h1]/|E[mu1 w h1]|`` and the vector problem is the
single-index problem with the scalar ``h1_e(kappa) = e . h1(kappa)`` and the same ``h, h2``
(the part of h1 orthogonal to e is learned by nobody: it is noise, through h2).  The solver
finds (V1, V2) once, then e, then solves the single-index system with ``h1_e``; it checks that
the second solve leaves (V1, V2) and e unchanged.

>>> res = solve_multi_index("tanh", "z1 + z1*z2", alpha0=4, eta=2, lam=0.1, alpha=2)
>>> round(res.test_error, 4)
1.4715
>>> res.alignment_vector[1]
0.0
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..step.multi_index import multi_index_mapping
from ..symbolic.multi_teacher import teacher_arrays
from ..symbolic.targets import multi_index_target
from .channels.kappa_quadrature import channel_data
from .square_solve import _solve_at, _validate, _validate_solver, make_spectrum
from .state import ConvergenceError, State

__all__ = ["solve_multi_index_srf", "solve_multi_index", "solve_multi_index_checked",
           "solve_multi_index_groups", "solve_multi_index_noisy", "solve_multi_index_convex",
           "MULTI_INDEX_NODES"]

#: kappa nodes of the multi-index channel.
MULTI_INDEX_NODES = 120


def _weights(ch, V1, V2):
    return 1.0 / (1.0 + np.asarray(ch.mu1) ** 2 * V1 + np.asarray(ch.mustar2) * V2)


def _direction(ch, h1v, V1, V2):
    """``E[mu1 w h1]`` (a k-vector) at (V1, V2)."""
    w = _weights(ch, V1, V2)
    return np.einsum("K,K,Kj->j", np.asarray(ch.weights), np.asarray(ch.mu1) * w, h1v)


def solve_multi_index_srf(student, target, r, c, gamma, lam, alpha, beta=1.0, spectrum="mp",
                          *, nodes=MULTI_INDEX_NODES, tol=1e-10, max_iter=20000, d=None,
                          seed=0):
    """Ridge fixed point of the sRF model with spike strength ``r``, bulk variance ``c`` and the
    alignment VECTOR ``gamma`` (k entries, ``|gamma| <= 1``) for a multi-index target.

    Returns a :class:`~srfsym.theory.result.FixedPointResult` (``gamma`` = |gamma|) with the
    attributes ``alignment_vector``, ``learned_direction`` (e, in the orthonormal coordinates of
    :mod:`srfsym.symbolic.multi_teacher`) and ``teacher_quadrature_error``.

    >>> res = solve_multi_index_srf("tanh", "tanh(z1) + 0*z2", 0.5, 1.2, (0.6, 0.0), 0.1, 1.0)
    >>> from srfsym.theory.fixed_point import solve_srf
    >>> abs(res.test_error - solve_srf("tanh", "tanh", 0.5, 1.2, 0.6, 0.1, 1.0).test_error) < 1e-10
    True
    """
    tg = multi_index_target(target)
    g = np.asarray(gamma, dtype=float).ravel()
    _validate(alpha, lam, beta)
    _validate_solver(tol, max_iter)
    r, c = float(r), float(c)
    norm = float(np.linalg.norm(g))
    spec = make_spectrum(spectrum, beta=float(beta), c=c, d=d, seed=seed, gamma=norm)
    ch0 = channel_data(student, "x", r, c, 0.0, nodes=int(nodes))
    h, h1v, h2, qerr = teacher_arrays(tg, g, np.asarray(ch0.kappa))
    args = (student, None, r, c, min(norm, 1.0), lam, alpha, beta, spec, int(nodes), tol,
            "structured", None, None, max_iter)
    first = _solve_at(*args, channel=replace(ch0, h=h, h1=np.linalg.norm(h1v, axis=1), h2=h2,
                                             gamma=norm))
    u = _direction(ch0, h1v, first.state.V1, first.state.V2)
    unorm = float(np.linalg.norm(u))
    # below round-off (e.g. z1*z2 after a step that learned nothing: h1 = 0) the bulk has no
    # linear part to learn; its direction would be noise (h2 keeps the teacher's whole energy)
    if unorm <= 1e-12 * max(1.0, float(np.sqrt(np.max(h2)))):
        unorm = 0.0
    e = u / unorm if unorm > 0 else np.zeros_like(u)
    res = _solve_at(*args, channel=replace(ch0, h=h, h1=h1v @ e, h2=h2, gamma=norm))
    u2 = _direction(ch0, h1v, res.state.V1, res.state.V2)
    moved = float(np.linalg.norm(u2 - u)) / max(unorm, 1e-300)
    if unorm > 0 and moved > 1e3 * tol:
        raise ConvergenceError(f"multi-index solve: the learned direction moved by {moved:.2e} "
                               "between the two solves (V1, V2 should not depend on the labels)")
    res.spectrum = spectrum if isinstance(spectrum, str) else type(spectrum).__name__
    res.alignment_vector = tuple(float(x) for x in g)
    res.learned_direction = tuple(float(x) for x in e)
    res.teacher_quadrature_error = qerr
    res.notes = list(res.notes) + [
        f"multi-index target {tg.name} (k = {tg.k}): "
        + (f"the bulk learns the linear part along e = {(np.round(e, 6) + 0.0).tolist()} only"
           if unorm > 0 else "the teacher has no linear part orthogonal to the spike that the "
           "bulk could learn (E[mu1 w h1] = 0)")
        + f" (docs/theory.md (n)); teacher quadrature error {qerr:.1e}"]
    return res


def solve_multi_index_noisy(student, target, r, c, gamma, lam, alpha, beta=1.0, spectrum="mp",
                            *, noise=0.0, bias=False, nodes=MULTI_INDEX_NODES, tol=1e-10,
                            max_iter=1000, d=None, seed=0):
    """The square loss with label noise (variance ``noise``) and/or a trained output bias for a
    multi-index target (docs/theory.md (n.8)): the square-loss channel's ``E g = w`` does not
    involve the labels, so the learned direction ``e = E[mu1 w h1]/|.|`` is fixed by (V1, V2)
    as in (n.4); solved by :func:`srfsym.theory.convex_fixed_point.solve_convex_srf` (closed
    channel) with the scalar ``h1_e = e . h1``, twice (the second at the first's e), checking
    that e does not move.

    >>> res = solve_multi_index_noisy("tanh", "tanh((z1 + z2)/sqrt(2))", 1.0, 1.1, (0.5, 0.5),
    ...                               0.1, 1.0, noise=0.2, bias=True)
    >>> from srfsym.theory.fixed_point import solve_srf
    >>> one = solve_srf("tanh", "tanh", 1.0, 1.1, 0.5 * 2 ** 0.5, 0.1, 1.0, noise=0.2, bias=True)
    >>> abs(res.test_error - one.test_error) < 1e-10
    True
    """
    from .convex_fixed_point import solve_convex_srf
    tg = multi_index_target(target)
    g = np.asarray(gamma, dtype=float).ravel()
    norm = float(np.linalg.norm(g))
    ridge = solve_multi_index_srf(student, tg, r, c, g, lam, alpha, beta, spectrum, nodes=nodes,
                                  tol=tol, d=d, seed=seed)
    e = np.asarray(ridge.learned_direction)
    found = {}

    def data(ch):
        h, h1v, h2, qerr = teacher_arrays(tg, g, np.asarray(ch.kappa))
        found.update(h1v=h1v, error=qerr)
        return replace(ch, h=h, h1=h1v @ e, h2=h2, gamma=norm)

    s = ridge.state
    res = solve_convex_srf(student, "x", r, c, min(norm, 1.0), lam, alpha, beta, spectrum,
                           loss="square", noise=noise, bias=bias, nodes=nodes, tol=tol,
                           max_iter=max_iter, d=d, seed=seed, teacher_data=data,
                           start=[s.q1, s.q2, s.V1, s.V2, s.theta, s.psi, s.m, 0.0])
    ch0 = channel_data(student, "x", r, c, 0.0, nodes=int(nodes))
    u = _direction(ch0, found["h1v"], res.state.V1, res.state.V2)
    if np.linalg.norm(u) > 0 and np.linalg.norm(u / np.linalg.norm(u) - e) > 1e3 * tol:
        raise ConvergenceError("multi-index solve: the learned direction moved between the "
                               "ridge and the noisy / biased solves (it should not: docs/theory.md (n.8))")
    res.alignment_vector = tuple(float(x) for x in g)
    res.learned_direction = tuple(float(x) for x in e)
    res.teacher_quadrature_error = found["error"]
    res.notes = list(res.notes) + [
        f"multi-index target {tg.name} (k = {tg.k}), square loss with label noise {noise:g}"
        f"{' and a trained bias' if bias else ''}: the bulk learns the linear part along "
        f"e = {np.round(e, 6).tolist()} (docs/theory.md (n.8))"]
    return res


def solve_multi_index_convex(student, target, r, c, gamma, lam, alpha, beta=1.0,
                             spectrum="mp", *, loss="logistic", noise=0.0, bias=False,
                             nodes=MULTI_INDEX_NODES, nodes_u=16, nodes_eta=None, tol=1e-10,
                             max_iter=1000, max_outer=60, d=None, seed=0):
    """Any convex readout loss for a multi-index target (docs/theory.md (n.8)): the fixed
    point of docs/theory.md (m) with the channel
    :class:`~srfsym.theory.channels.convex_multi.MultiIndexConvexChannel` at the learned
    direction ``e``, iterated with ``e = psi^/|psi^|`` (the vector conjugate) until ``e`` moves by
    less than ``sqrt(tol)``; each inner solve starts from the last.  Labels +-1 when the target
    takes the values +-1 (``sign(z1 + z1*z2)``: ``y = g(z)``), else real (``y = g(z)`` + noise).
    Returns a :class:`~srfsym.theory.convex_fixed_point.ConvexResult` with
    ``alignment_vector``, ``learned_direction``, ``outer_iterations``.

    >>> res = solve_multi_index_convex("tanh", "sign((z1 + z2)/sqrt(2))", 1.0, 1.1, (0.5, 0.5),
    ...                                0.05, 2.0, nodes=60, nodes_u=12)
    >>> from srfsym.theory.convex_fixed_point import solve_convex_srf
    >>> one = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.5 * 2 ** 0.5, 0.05, 2.0,
    ...                        loss="logistic", nodes=60, nodes_u=12)
    >>> abs(res.classification_error - one.classification_error) < 1e-10
    True
    """
    from .channels.convex_multi import MultiIndexConvexChannel, check_labels
    from .convex_fixed_point import (_check_arguments, _result, _solve_engine, _vector)
    from .engine import Engine, MomentPrior
    tg = multi_index_target(target)
    g = np.asarray(gamma, dtype=float).ravel()
    lo = _check_arguments(loss, r, c, min(float(np.linalg.norm(g)), 1.0), lam, alpha, beta,
                          noise, bias, "anderson", tol, max_iter)
    r, c, lam, alpha, beta = map(float, (r, c, lam, alpha, beta))
    pm1 = check_labels(tg, lo, noise)          # before any work
    ridge = solve_multi_index_srf(student, tg, r, c, g, max(lam, 1e-3), alpha, beta, spectrum,
                                  nodes=nodes, tol=1e-8, d=d, seed=seed)
    e = np.asarray(ridge.learned_direction, float)
    if not np.linalg.norm(e) > 0:
        e = np.eye(tg.k)[0]
    s = ridge.state
    x = np.array([s.q1, s.q2, s.V1, s.V2, s.theta, s.psi, s.m, 0.0])
    # the kappa rule: labels +-1 are cut at kappa = 0 as the single-index teacher sign's
    ch = channel_data(student, "sign" if pm1 else "x", r, c,
                      min(float(np.linalg.norm(g)), 1.0), nodes=int(nodes))
    spec = make_spectrum(spectrum, beta=beta, c=c, d=d, seed=seed,
                         gamma=float(np.linalg.norm(g)))
    sweeps = 0
    for outer in range(1, int(max_outer) + 1):
        C = MultiIndexConvexChannel(ch, lo, alpha=alpha, beta=beta, target=tg, gamma=g,
                                    direction=e, noise=noise, bias=bias, method="quadrature",
                                    nodes_u=nodes_u, nodes_eta=nodes_eta)
        x, it, res, hat = _solve_engine(Engine(C, MomentPrior(spec, lam, beta)), x, tol,
                                        max_iter, "anderson", lo, lam, bias, None, _vector)
        sweeps += it
        state = State(*x[:7])
        u = C.psi_hat_vector(state, x[7])
        un = float(np.linalg.norm(u))
        if un == 0 or tg.k == 1:
            break
        e_new = u / un * (1.0 if float(u @ e) >= 0 else -1.0)
        moved = float(np.linalg.norm(e_new - e))
        if moved < math.sqrt(tol):
            break
        x[5] = x[5] * float(e_new @ e)         # psi along the new direction
        e = e_new
    else:
        raise ConvergenceError(f"multi-index convex solve: the learned direction still moves by "
                               f"{moved:.2e} after {max_outer} outer iterations")
    obs = C.observables(state, x[7])
    out = _result(obs, state, hat, lo, C, dict(
        alpha=alpha, lam=lam, beta=beta, r=r, c=c, gamma=min(float(np.linalg.norm(g)), 1.0),
        spectrum=spectrum if isinstance(spectrum, str) else type(spectrum).__name__,
        nodes=int(nodes), residual=res, method="anderson", iterations=sweeps,
        seconds=0.0), noise, x[7] if bias else None, "teacher")
    out.alignment_vector = tuple(float(v) for v in g)
    out.learned_direction = tuple(float(v) for v in e)
    out.outer_iterations = outer
    out.notes = list(out.notes) + [
        f"multi-index target {tg.name} (k = {tg.k}), {lo.name} loss, labels "
        + ("+-1 (the target's values)" if C.pm1 else "real") + f": the bulk learns along "
        f"e = {np.round(e, 6).tolist()} ({outer} outer iterations; docs/theory.md (n.8))"]
    return out


def solve_multi_index_groups(student, target, r, c, gamma, lam, alpha, beta=1.0, *,
                             vocabulary=None, nodes=MULTI_INDEX_NODES, tol=1e-10,
                             max_iter=20000):
    """Ridge fixed point with a readout vocabulary (docs/theory.md (k.7)) for a multi-index
    target: the K-group engine with the channel
    :class:`~srfsym.theory.channels.square.GroupMultiIndexSquareChannel` (K x k overlaps,
    docs/theory.md (n.7)) and the block-Wishart prior; ``r, c, gamma`` are the uniform sRF
    parameters (letter ``j``: spike ``r omega_j``, bulk variance ``1 + omega_j^2 (c - 1)``, the
    same alignment vector).  Returns a
    :class:`~srfsym.theory.result.FixedPointResult` with ``alignment_vector``,
    ``letter_directions`` (one unit k-vector per letter, the rows of ``psi^``) and
    ``teacher_quadrature_error``.

    >>> a = solve_multi_index_groups("tanh", "z1 + z1*z2", 1.2, 1.1, (0.8, 0.0), 0.1, 1.0,
    ...                              vocabulary=[1])
    >>> b = solve_multi_index_srf("tanh", "z1 + z1*z2", 1.2, 1.1, (0.8, 0.0), 0.1, 1.0)
    >>> abs(a.test_error - b.test_error) < 1e-12
    True
    """
    from ..step.vocabulary import check_student, vocabulary as make_vocabulary
    from .channels.kappa_quadrature import node_rule
    from .engine import _NODE_LADDER
    from .fixed_point_groups import _solve_at as _solve_groups_at
    tg = multi_index_target(target)
    g = np.asarray(gamma, dtype=float).ravel()
    if g.shape != (tg.k,):
        raise ValueError(f"the alignment vector must have k = {tg.k} entries, got {g.shape[0]}")
    _validate(alpha, lam, beta)
    _validate_solver(tol, max_iter)
    voc = make_vocabulary(vocabulary)
    check_student(student, voc)
    norm = float(np.linalg.norm(g))
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)):
        raise ValueError(f"nodes must be an integer, got {nodes!r}")
    found = {}

    def teacher_data(gch):
        h, h1v, h2, qerr = teacher_arrays(tg, g, np.asarray(gch.kappa))
        found["error"] = qerr
        first = replace(gch.groups[0], h=h, h1=np.linalg.norm(h1v, axis=1), h2=h2, gamma=norm)
        return replace(gch, groups=(first,) + tuple(gch.groups[1:])), h1v

    # the kappa rule of solve_srf_groups (cut at every letter's transitions)
    cuts, _ = node_rule(student, voc.group_spike_strengths(float(r)),
                        voc.group_bulk_variances(float(c)), _NODE_LADDER)
    res = _solve_groups_at(student, "x", float(r), float(c), min(norm, 1.0), lam, alpha, beta,
                           voc, int(nodes), tol, None, max_iter, cuts,
                           teacher_data=teacher_data)
    ph = np.asarray(res.hats.psihat, dtype=float).reshape(voc.K, tg.k)
    rows = np.linalg.norm(ph, axis=1, keepdims=True)
    res.alignment_vector = tuple(float(x) for x in g)
    res.letter_directions = tuple(tuple(float(x) for x in row) for row in
                                   np.where(rows > 0, ph / np.where(rows > 0, rows, 1), 0.0))
    res.teacher_quadrature_error = found["error"]
    res.notes = list(res.notes) + [
        f"multi-index target {tg.name} (k = {tg.k}) with the vocabulary {voc.letters}: each "
        "letter's bulk learns the linear part along its own direction (docs/theory.md (n.7)); "
        f"teacher quadrature error {found['error']:.1e}"]
    return res


def solve_multi_index(student, target, alpha0, eta, lam, alpha, beta=1.0, spectrum="mp", *,
                      mu0_correction=True, **kwargs):
    """Test error after one step (``alpha0``, ``eta``) on a multi-index target, ridge readout,
    uniform readout initialisation, isotropic bulk: the map of
    :func:`srfsym.step.multi_index.multi_index_mapping` then :func:`solve_multi_index_srf`.
    ``alpha0 = 0`` or ``eta = 0`` is the kernel (no step) baseline.  A non-uniform
    ``vocabulary=`` runs :func:`solve_multi_index_groups` (docs/theory.md (n.7)), label
    ``noise=`` or ``bias=True`` :func:`solve_multi_index_noisy` (n.8), another ``loss=``
    :func:`solve_multi_index_convex` (n.8); both with a vocabulary
    :func:`solve_multi_index_convex_groups` (n.8).

    >>> res = solve_multi_index("tanh", "z1 + z1*z2", alpha0=0, eta=0, lam=0.1, alpha=2)
    >>> res.r, res.c, res.alignment_vector
    (0.0, 1.0, (0.0, 0.0))
    """
    tg = multi_index_target(target)
    if float(alpha0) == 0 or float(eta) == 0:
        r, c, g = 0.0, 1.0, (0.0,) * tg.k
    else:
        m = multi_index_mapping(student, tg, eta, alpha0, mu0_correction=mu0_correction)
        r, c, g = m.spike_strength, m.bulk_variance, tuple(float(x) for x in m.alignment_vector)
    vocabulary = kwargs.pop("vocabulary", None)
    noise, bias = kwargs.pop("noise", 0.0), kwargs.pop("bias", False)
    loss = kwargs.pop("loss", "square")
    plain = isinstance(loss, str) and loss.strip() == "square" and noise == 0 and not bias
    if not plain and vocabulary is not None and not _uniform(vocabulary):
        if spectrum != "mp":
            raise ValueError("with a readout vocabulary the multi-index fixed point is solved with "
                             "the deterministic block-Wishart spectrum: spectrum='mp'")
        for key in ("d", "seed"):
            kwargs.pop(key, None)
        return solve_multi_index_convex_groups(student, tg, r, c, g, lam, alpha, beta,
                                               vocabulary=vocabulary, loss=loss, noise=noise,
                                               bias=bias, **kwargs)
    if not (isinstance(loss, str) and loss.strip() == "square"):
        return solve_multi_index_convex(student, tg, r, c, g, lam, alpha, beta, spectrum,
                                        loss=loss, noise=noise, bias=bias, **kwargs)
    if noise != 0 or bias:
        return solve_multi_index_noisy(student, tg, r, c, g, lam, alpha, beta, spectrum,
                                       noise=noise, bias=bias, **kwargs)
    if vocabulary is not None and not _uniform(vocabulary):
        if spectrum != "mp":
            raise ValueError("with a readout vocabulary the multi-index fixed point is solved with "
                             "the deterministic block-Wishart spectrum: spectrum='mp'")
        return solve_multi_index_groups(student, tg, r, c, g, lam, alpha, beta,
                                        vocabulary=vocabulary, **kwargs)
    return solve_multi_index_srf(student, tg, r, c, g, lam, alpha, beta, spectrum, **kwargs)


#: keyword arguments of ``solve`` and the values the multi-index path takes (any loss).
_PLAIN = {"label_rule": ("teacher",), "dps": (None,), "bulk": (None, "isotropic"),
          "method": ("structured",)}


def solve_multi_index_checked(student, target, alpha0, eta, lam, alpha, beta=1.0, spectrum="mp",
                              *, mu0_correction=True, **kwargs):
    """:func:`solve_multi_index` behind ``srfsym.theory.fixed_point.solve``: refuses, naming
    why, the options the multi-index theory does not cover yet, and attaches the mapping.

    >>> solve_multi_index_checked("tanh", "sign(z1*z2)", 2, 1, 0.1, 1.0, label_rule="bernoulli")
    Traceback (most recent call last):
    ...
    ValueError: multi-index target 'sign(z1*z2)': label_rule = 'bernoulli' is not implemented (the multi-index theory of docs/theory.md (n) covers the labels y = g(z) -- labels +-1 from a target with values +-1 such as sign(z1 + z1*z2) --, any convex loss with the uniform readout or a vocabulary, the isotropic bulk, double precision: (n.8))
    """
    for key, allowed in _PLAIN.items():
        value = kwargs.pop(key, allowed[0])
        if isinstance(value, str):
            value = value.strip()
        if not any(value is a or (value == a and type(value) is type(a)) for a in allowed):
            raise ValueError(
                f"multi-index target {getattr(target, 'name', target)!r}: {key} = {value!r} is "
                "not implemented (the multi-index theory of docs/theory.md (n) covers the labels "
                "y = g(z) -- labels +-1 from a target with values +-1 such as sign(z1 + z1*z2) --"
                ", any convex loss with the uniform readout or a vocabulary, the isotropic "
                "bulk, double precision: (n.8))")
    if kwargs.get("nodes") == "auto":
        kwargs.pop("nodes")
    kwargs.pop("start", None)
    res = solve_multi_index(student, target, alpha0, eta, lam, alpha, beta, spectrum,
                            mu0_correction=mu0_correction, **kwargs)
    tg = multi_index_target(target)
    if float(alpha0) != 0 and float(eta) != 0:
        res.mapping = multi_index_mapping(student, tg, eta, alpha0,
                                          mu0_correction=mu0_correction)
        res.notes.extend(res.mapping.notes)
    else:
        from ..step.multi_index import no_step_mapping
        res.mapping = no_step_mapping(student, tg)
    return res


def _uniform(value):
    from ..step.vocabulary import vocabulary as make_vocabulary
    try:
        return make_vocabulary(value).is_uniform
    except (ValueError, TypeError):
        return False


def solve_multi_index_convex_groups(student, target, r, c, gamma, lam, alpha, beta=1.0, *,
                                    vocabulary=None, loss="logistic", noise=0.0, bias=False,
                                    nodes=MULTI_INDEX_NODES, nodes_u=16, nodes_eta=None,
                                    tol=1e-10, max_iter=1000, max_outer=60):
    """Any convex readout loss with a readout vocabulary for a multi-index target
    (docs/theory.md (n.8)): the K-group fixed point of docs/theory.md (m.8) with the channel
    :class:`~srfsym.theory.channels.convex_multi.GroupMultiIndexConvexChannel` at a learned
    direction ``e`` shared by the letters, iterated with ``e`` the leading right singular
    vector of the K x k conjugate ``psi^`` until it moves by less than ``sqrt(tol)``.  At
    the end every letter's row of ``psi^`` must lie along ``e`` (their spread, the largest
    relative component orthogonal to ``e``, is ``direction_spread``): letters that learn
    different directions are refused (a kappa-dependent direction, not implemented).

    >>> a = solve_multi_index_convex_groups("tanh", "sign((z1 + z2)/sqrt(2))", 1.0, 1.1,
    ...                                     (0.5, 0.5), 0.05, 2.0, vocabulary=[1, 2],
    ...                                     nodes=60, nodes_u=12)
    >>> from srfsym.theory.convex_groups import solve_convex_groups
    >>> b = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.5 * 2 ** 0.5, 0.05, 2.0,
    ...                         loss="logistic", vocabulary=[1, 2], nodes=60, nodes_u=12)
    >>> abs(a.classification_error - b.classification_error) < 1e-8
    True
    """
    from ..step.vocabulary import check_student, vocabulary as make_vocabulary
    from .channels.convex_multi import GroupMultiIndexConvexChannel, check_labels
    from .channels.kappa_quadrature import group_channel_data, node_rule
    from .convex_fixed_point import _check_arguments, _result, _solve_engine
    from .convex_groups import _Packing
    from .engine import Engine, _NODE_LADDER
    from .spectral.block_wishart import BlockWishartPrior
    tg = multi_index_target(target)
    g = np.asarray(gamma, dtype=float).ravel()
    norm = float(np.linalg.norm(g))
    lo = _check_arguments(loss, r, c, min(norm, 1.0), lam, alpha, beta, noise, bias,
                          "anderson", tol, max_iter)
    r, c, lam, alpha, beta = map(float, (r, c, lam, alpha, beta))
    voc = make_vocabulary(vocabulary)
    check_student(student, voc)
    pm1 = check_labels(tg, lo, noise)          # before any work
    ridge = solve_multi_index_groups(student, tg, r, c, g, max(lam, 1e-3), alpha, beta,
                                     vocabulary=voc, nodes=nodes, tol=1e-8)
    e = _leading_direction(np.asarray(ridge.hats.psihat, float).reshape(voc.K, tg.k), None)
    if e is None:
        e = np.eye(tg.k)[0]
    s = ridge.state
    pack = _Packing(voc.K)
    x = pack.vector(State(s.q1, s.q2, s.V1, s.V2, s.theta,
                          np.asarray(s.psi, float).reshape(voc.K, tg.k) @ e, s.m), 0.0)
    cuts = () if voc.is_uniform else node_rule(student, voc.group_spike_strengths(r),
                                                 voc.group_bulk_variances(c), _NODE_LADDER)[0]
    gch = group_channel_data(student, "sign" if pm1 else "x", r, c, min(norm, 1.0), voc,
                             nodes=int(nodes), extra_cuts=cuts)
    prior = BlockWishartPrior(gch.group_c, voc.weights, beta, lam)
    sweeps = 0
    for outer in range(1, int(max_outer) + 1):
        C = GroupMultiIndexConvexChannel(gch, lo, alpha=alpha, beta=beta, target=tg, gamma=g,
                                         direction=e, noise=noise, bias=bias,
                                         method="quadrature", nodes_u=nodes_u,
                                         nodes_eta=nodes_eta)
        x, it, res, hat = _solve_engine(Engine(C, prior), x, tol, max_iter, "anderson", lo, lam,
                                        bias, None, pack.vector, pack.unpack, pack.admissible,
                                        pack.summary)
        sweeps += it
        state, b0 = pack.unpack(x)
        P = C.psi_hat_matrix(state, b0)
        e_new = _leading_direction(P, e)
        if e_new is None or tg.k == 1:
            break
        moved = float(np.linalg.norm(e_new - e))
        if moved < math.sqrt(tol):
            break
        psi = state.psi * float(e_new @ e)        # psi along the new direction
        x = pack.vector(State(*state[:5], psi, state.m), b0)
        e = e_new
    else:
        raise ConvergenceError(f"multi-index convex solve with a vocabulary: the learned "
                               f"direction still moves by {moved:.2e} after {max_outer} "
                               "outer iterations")
    spread = _direction_spread(P, e)
    if spread > 1e3 * math.sqrt(tol):
        raise ValueError(
            f"multi-index target {tg.name} with the vocabulary {voc.letters}: the letters learn "
            f"different directions (relative spread {spread:.1e} of the rows of psi^ off the "
            "shared direction); a kappa-dependent learned direction is not implemented "
            "(docs/theory.md (n.8))")
    out = _result(C.observables(state, b0), state, hat, lo, C, dict(
        alpha=alpha, lam=lam, beta=beta, r=r, c=c, gamma=min(norm, 1.0), spectrum="block-mp",
        nodes=int(nodes), residual=res, method="anderson", iterations=sweeps, seconds=0.0),
        noise, b0 if bias else None, "teacher")
    out.vocabulary = voc
    out.alignment_vector = tuple(float(v) for v in g)
    out.learned_direction = tuple(float(v) for v in e)
    out.outer_iterations, out.direction_spread = outer, spread
    out.notes = list(out.notes) + [
        f"multi-index target {tg.name} (k = {tg.k}), {lo.name} loss, vocabulary {voc.letters}: "
        f"the letters learn along e = {np.round(e, 6).tolist()} (spread {spread:.1e}, "
        f"{outer} outer iterations; docs/theory.md (n.8))"]
    return out


def _leading_direction(P, e):
    """The leading right singular vector of the K x k matrix ``P`` (sign: along ``e`` or,
    without ``e``, along the largest row), None when ``P = 0``."""
    if not np.any(P):
        return None
    v = np.linalg.svd(P)[2][0]
    ref = e if e is not None else P[np.argmax(np.linalg.norm(P, axis=1))]
    return v if float(v @ ref) >= 0 else -v


def _direction_spread(P, e):
    """The largest component of a row of ``P`` orthogonal to ``e``, relative to the largest
    row."""
    top = float(np.max(np.linalg.norm(P, axis=1)))
    if top == 0:
        return 0.0
    return float(np.max(np.linalg.norm(P - np.outer(P @ e, e), axis=1))) / top
