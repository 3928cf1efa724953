r"""The fixed-point engine: one channel, one spectral side, one sweep, the solvers.

The fixed point of docs/theory.md (f), (k.7) is the map ``State -> channel -> Hats ->
spectral side -> State`` (:mod:`srfsym.theory.interfaces`).  :class:`Engine` composes a
:class:`~srfsym.theory.interfaces.Channel` and a prior (the spectral side turned into order
parameters: :class:`MomentPrior` for the uniform readout with any spectral back end,
:class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior` for K groups) and is the
only place the sweep is written.  The prior equations of the uniform readout::

    V1 = <D/S>, V2 = <1/S>, theta = sqrt(beta) th^ <F/S>, psi = sqrt(beta) psi^ <H/S>,
    q1 = q1^<D^2/S^2> + q2^<D/S^2> + th^2 <DF/S^2> + psi^2 <DH/S^2>
    q2 = q1^<D/S^2>   + q2^<1/S^2> + th^2 <F/S^2>  + psi^2 <H/S^2>,   S = lambda + V2^ + V1^ D.

**Solvers.** With a channel whose ``closed_variance`` holds (the square loss), (V1, V2) form
a closed subsystem, solved by one Newton driver (:func:`newton`) in the solver variables
of the readout: ``log V1, log V2`` for the uniform readout, the log-Cholesky variables of
the K x K matrix V1 and ``log V2`` for K groups (:mod:`srfsym.theory.fixed_point_groups`);
fallbacks: damped Anderson iteration, then ``scipy.optimize.root``.  Given (V1, V2) the
sweep is *affine* in (m, theta) and then in (q1, q2), solved exactly by one linear solve
each (:func:`complete`, the same function for every K: the channel gives the shapes, the
prior's resolvent solution is frozen while the V-conjugates are).  Any other channel is
iterated as a whole (:func:`solve_general`).  The same functions run on scalars (double or
mpmath) and on columns of points (the batched grid, :mod:`srfsym.theory.grid`).

**Precision.** The mpmath mode needs every part of a sweep in mpmath: the uniform channel
and the Marchenko-Pastur (or sample) sums have it; the K-group channel and the
block-Wishart prior are written with LAPACK linear algebra (eigh, inverse, solve) in double
precision, so a vocabulary with K > 1 refuses ``dps``.

>>> from srfsym.theory.channels.kappa_quadrature import channel_data
>>> from srfsym.theory.spectral.marchenko_pastur import MarchenkoPastur
>>> P = _Problem(channel_data("tanh", "sin", 1.13, 1.02, 1.0, nodes=72),
...              MarchenkoPastur(1.0, 1.02), 1.0, 0.1, 1.0)
>>> V, _ = _solve_v_newton(P, (3.0, 3.0), 1e-10)
>>> s = complete(P, float(V[0]), float(V[1]))
>>> _residual(P, s)[0] < 1e-10
True
"""
from __future__ import annotations

import contextlib
import math

import mpmath
import numpy as np

from .interfaces import Channel
from .channels.square import SquareLossChannel
from .problem import check_readout_point
from .state import ConvergenceError, Hats, State
from ..core.precision import workdps

__all__ = ["Engine", "MomentPrior", "prior_overlaps", "complete", "solve_general", "newton", "affine_fixed_point",
           "NODE_LADDER"]

NODE_LADDER = (48, 72, 108, 162, 243, 364)
_NODE_LADDER = NODE_LADDER


def prior_overlaps(hat: Hats, mom, sqrt_beta, m_new, cross=None) -> State:
    """The uniform prior equations: order parameters from the conjugates and the eleven
    spectral sums ``mom`` at ``(lambda + V2hat, V1hat)``; ``cross``: the cross sums
    ``(<X/S>, <X/S^2>, <D X/S^2>)`` of the spike and teacher directions (docs/theory.md (g.4)),
    ``None`` where they vanish (an isotropic bulk)."""
    th2, ps2 = hat.thetahat**2, hat.psihat**2
    q1 = hat.q1hat * mom.rhosq2 + hat.q2hat * mom.rho2 + th2 * mom.DF2 + ps2 * mom.DH2
    q2 = hat.q1hat * mom.rho2 + hat.q2hat * mom.inv2 + th2 * mom.F2 + ps2 * mom.H2
    theta, psi = hat.thetahat * mom.F, hat.psihat * mom.H
    if cross is not None:
        x1, x2, dx2 = cross
        tp = 2 * hat.thetahat * hat.psihat
        q1, q2 = q1 + tp * dx2, q2 + tp * x2
        theta, psi = theta + hat.psihat * x1, psi + hat.thetahat * x1
    return State(q1=q1, q2=q2, V1=mom.rho, V2=mom.inv, theta=sqrt_beta * theta,
                 psi=sqrt_beta * psi, m=m_new)


class MomentPrior:
    """The uniform prior: a spectral back end (:class:`~srfsym.theory.interfaces.SpectralSide`)
    at ridge ``lam`` and width ratio ``beta``, in double precision, mpmath (``dps``) or on
    columns of points (``batch=True``: ``moments_array``)."""

    def __init__(self, spectrum, lam, beta, dps=None, batch=False):
        self.spectrum = spectrum
        if dps is not None:
            with workdps(dps + 10):
                self.lam, self.beta = (mpmath.mpf(str(v)) if not isinstance(v, mpmath.mpf)
                                       else v for v in (lam, beta))
                self.sqrt_beta = mpmath.sqrt(self.beta)
            self.moments = lambda lp, v1: spectrum.moments_mpmath(lp, v1, dps=dps + 10)
            cross = getattr(spectrum, "cross_moments_mpmath", None)
            self.cross = None if cross is None else (
                lambda lp, v1: cross(lp, v1, dps=dps + 10))
        else:
            self.lam, self.beta = lam if batch else float(lam), float(beta)
            self.sqrt_beta = math.sqrt(self.beta)
            self.moments = (spectrum.moments_array if batch
                            else getattr(spectrum, "moments", None))   # None: channel side only
            # the cross sums of the spike and teacher directions, where the back end has them
            self.cross = getattr(spectrum, "cross_moments_array" if batch else "cross_moments",
                                 None)

    def freeze(self, hat: Hats):
        """The spectral sums (and the cross sums, if any) at the conjugates' (V1hat, V2hat),
        reused while they are fixed."""
        lp = self.lam + hat.V2hat
        return (self.moments(lp, hat.V1hat),
                None if self.cross is None else self.cross(lp, hat.V1hat))

    def overlaps(self, hat: Hats, m_new, frozen=None) -> State:
        if frozen is None:
            frozen = self.freeze(hat)
        return prior_overlaps(hat, frozen[0], self.sqrt_beta, m_new, frozen[1])


class Engine:
    """A channel and a prior: the sweep of the fixed point, written once.

    One sweep: all conjugates from the old overlaps, ``m`` (and ``b0``) from the channel's
    stationarity conditions, then the overlaps from the prior."""

    def __init__(self, channel: Channel, prior):
        self.channel, self.prior = channel, prior
        self._bind()

    def _bind(self):
        """The sides' methods as attributes of the engine (one call frame less per use, in
        the solvers' inner loops); called again whenever a side is replaced."""
        ch = self.channel
        if ch.closed_variance:
            self.hats, self.v_hats, self.m_update = ch.hats, ch.v_hats, ch.m_update
            self.errors = ch.errors
        self.overlaps = self.prior.overlaps
        self.moments, self.lam = getattr(self.prior, "moments", None), self.prior.lam

    def sweep(self, s: State) -> State:
        step = self.channel.conjugates(s)
        return self.prior.overlaps(step.hats, step.m)

    # the channel's and the prior's parts, as the solvers use them
    def hats(self, s: State):
        return self.channel.hats(s)

    def v_hats(self, V1, V2):
        return self.channel.v_hats(V1, V2)

    def m_update(self, theta, w):
        return self.channel.m_update(theta, w)

    def overlaps(self, hat: Hats, m_new):
        return self.prior.overlaps(hat, m_new)

    def errors(self, s: State):
        """(test error, train error)."""
        return self.channel.errors(s)


class _Problem(Engine):
    """The square-loss engine of the uniform readout: ``_Problem(channel data, spectrum,
    alpha, lam, beta)`` (a spectral back end, or ``None`` for the channel side alone)."""

    def __init__(self, ch, spectrum, alpha, lam, beta):
        channel = SquareLossChannel(ch, alpha, beta)
        dps = channel._dps if channel.mp else None
        super().__init__(channel, MomentPrior(spectrum, lam, beta, dps=dps))
        self.ch, self.spectrum, self.mp = ch, spectrum, channel.mp


def sweep(problem: Engine, state: State) -> State:
    """One sweep of the fixed-point map (all hats from the old overlaps, then overlaps)."""
    return problem.sweep(state)


# ======================================================================================
# solvers

_START = State(0.1, 0.2, 3.0, 3.0, 0.5, 0.5, 1.5)   # the reference's starting point


def _spectral_moments(P: _Problem, V1hat, V2hat, V):
    """Spectral sums at (lambda + V2hat, V1hat); a diverging resolvent is a ConvergenceError."""
    try:
        return P.moments(P.lam + V2hat, V1hat)
    except ValueError as exc:
        raise ConvergenceError(
            f"the resolvent diverges at lambda + V2hat = {float(P.lam + V2hat):.3g} "
            f"({exc}); with lambda = 0 and mu_star = 0 the ridgeless limit needs beta < 1",
            residual=float("inf"), iterate=V) from None


def _v_map(P: _Problem, V):
    V1hat, V2hat, _ = P.v_hats(V[0], V[1])
    mom = _spectral_moments(P, V1hat, V2hat, V)
    return mom.rho, mom.inv


def _v_map_jacobian(P: _Problem, V):
    """(V1, V2) map G and its exact Jacobian dG/dV.

    dVhat/dV are kappa-expectations of mu^4 w^2; the spectral derivatives are the 1/S^2 sums
    the spectrum returns anyway: d<1/S>/dlambda' = -<1/S^2>, d<1/S>/dVhat1 = -<D/S^2>,
    d<D/S>/dlambda' = -<D/S^2>, d<D/S>/dVhat1 = -<D^2/S^2> (lambda' = lambda + Vhat2)."""
    V1hat, V2hat, w = P.v_hats(V[0], V[1])
    mom = _spectral_moments(P, V1hat, V2hat, V)
    dVh = P.channel.v_hats_jacobian(w)
    dG_dVh = ((-mom.rhosq2, -mom.rho2), (-mom.rho2, -mom.inv2))
    # the 2 x 2 product written out, so that it also applies entrywise to a batch (grid.py)
    dG = np.array([[dG_dVh[i][0] * dVh[0][j] + dG_dVh[i][1] * dVh[1][j] for j in range(2)]
                   for i in range(2)])
    return np.array([mom.rho, mom.inv]), dG


def _newton_step(J, f):
    """Solve ``J step = -f``: Cramer for 2 x 2 (also the uniform readout's exact arithmetic),
    LAPACK otherwise; ``None`` when J is singular."""
    if len(f) == 2:
        det = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]
        if not (det != 0 and math.isfinite(det)):
            return None
        return np.array([(J[0, 1] * f[1] - J[1, 1] * f[0]) / det,
                         (J[1, 0] * f[0] - J[0, 0] * f[1]) / det])
    step = np.linalg.solve(J, -f)
    return step if np.all(np.isfinite(step)) else None


#: failures of a trial point that the line search answers by a shorter step
_TRIAL_ERRORS = (ConvergenceError, np.linalg.LinAlgError, FloatingPointError, OverflowError)


def newton(F, jacobian, u, accept, max_iter=60, catch=False):
    """Newton's method with backtracking on ``F(u) = 0`` in the solver variables ``u`` (the
    logarithms of (V1, V2) for the uniform readout, the log-Cholesky variables of the K x K
    ``V1`` and log V2 for K groups): the one Newton driver of the engine.

    ``jacobian(u)`` is ``dF/du``; a step is accepted when every entry stays finite and
    ``max |F|`` falls by the Armijo factor ``1 - 1e-4 t`` (t halved down to 1e-4).  Stops
    at ``max |F| < 1e-15``, or returns when the last ``max |F| < accept``; else a
    :class:`ConvergenceError`.  ``catch``: a trial point whose evaluation fails is answered
    by a shorter step instead of ending the solve.  Returns ``(u, iterations)``.

    >>> u, it = newton(lambda u: u**2 - 2.0, lambda u: np.diag(2 * u), np.array([1.0, 3.0]),
    ...                1e-12)
    >>> bool(np.allclose(u, np.sqrt(2), rtol=1e-15))
    True
    """
    f = F(u)
    for it in range(1, max_iter + 1):
        nf = np.abs(f).max()   # (the array methods: the same numbers, less call overhead)
        if nf < 1e-15:
            return u, it
        step = _newton_step(jacobian(u), f)
        if step is None:
            break
        t = 1.0
        while t > 1e-4:
            un = u + t * step
            try:
                fn = F(un)
            except _TRIAL_ERRORS:
                if not catch:
                    raise
                fn = None
            if fn is not None and np.isfinite(fn).all() and np.abs(fn).max() < (
                    1 - 1e-4 * t) * nf:
                break
            t /= 2
        else:
            break
        u, f = un, fn
    if np.abs(f).max() < accept:
        return u, max_iter
    raise ConvergenceError("Newton on (V1, V2) did not converge",
                           residual=float(np.max(np.abs(f))), iterate=u)


def _solve_v_newton(P: _Problem, start, tol, max_iter=60):
    """Newton on log(V1), log(V2) with the exact Jacobian (:func:`newton`)."""
    u = np.log(np.maximum(np.asarray(start, dtype=float), 1e-300))

    def F(u):
        G = _v_map(P, np.exp(u))
        return np.log(np.maximum(np.asarray(G, float), 1e-300)) - u

    def jacobian(u):
        # F(u) = log G(e^u) - u  =>  J = diag(1/G) dG/dV diag(V) - I
        V = np.exp(u)
        G, dG = _v_map_jacobian(P, V)
        return dG * V[None, :] / G[:, None] - np.eye(2)

    try:
        u, it = newton(F, jacobian, u, tol * 1e-2, max_iter)
    except ConvergenceError as exc:
        exc.iterate = np.exp(exc.iterate)
        raise
    if it == 1:      # the start solves the equations (to 1e-15): it is the answer, as given
        return np.asarray(start, dtype=float), it
    return np.exp(u), it


def _solve_v_iterate(P: _Problem, start, tol, max_iter=20000):
    """Damped iteration of the (V1, V2) map with Anderson acceleration."""
    x = np.asarray(start, dtype=float)
    x, it, res = _anderson(lambda v: np.asarray(_v_map(P, v), float), x, tol * 1e-2, max_iter)
    return x, it


def _anderson(G, x, tol, max_iter, memory=5, damping=0.5):
    """Anderson-accelerated damped fixed-point iteration x = G(x). Returns (x, iters, res)."""
    X, F = [], []
    res = np.inf
    for it in range(1, max_iter + 1):
        gx = G(x)
        f = gx - x
        res = float(np.max(np.abs(f)))
        if not np.all(np.isfinite(gx)):
            raise ConvergenceError("iteration produced a non-finite value", residual=res,
                                   iterate=x)
        if res < tol:
            return gx, it, res
        X.append(x.copy())
        F.append(f.copy())
        if len(X) > memory + 1:
            X.pop(0)
            F.pop(0)
        x_new = x + damping * f
        cand = anderson_candidate(X, F, x, f, damping)
        if cand is not None and np.all(np.isfinite(cand)):
            x_new = cand
        x = x_new
    raise ConvergenceError(f"no convergence after {max_iter} iterations", residual=res,
                           iterate=x)


def anderson_candidate(X, F, x, f, mixing, extra=()):
    """The Anderson (type II) step from the history ``X`` (iterates) and ``F`` (their residuals
    ``G(x) - x``), with mixing parameter ``mixing`` on the residual; ``None`` with fewer than
    two entries or a singular least-squares problem.  ``extra``: further secant pairs
    ``(dx, df)`` (e.g. of a neighbouring point's iteration, a warm start of the multisecant
    model), used after the history's own.

    >>> import numpy as np
    >>> G = lambda x: 0.5 * x + 1.0                    # fixed point 2
    >>> X = [np.array([0.0]), np.array([1.0])]
    >>> F = [G(x) - x for x in X]
    >>> anderson_candidate(X, F, X[-1], F[-1], 1.0)
    array([2.])
    """
    pairs = [(X[i + 1] - X[i], F[i + 1] - F[i]) for i in range(len(F) - 1)] + list(extra)
    if not pairs:
        return None
    dX = np.array([p[0] for p in pairs]).T
    dF = np.array([p[1] for p in pairs]).T
    try:
        coef, *_ = np.linalg.lstsq(dF, f, rcond=None)
    except np.linalg.LinAlgError:
        return None
    return x + mixing * f - (dX + mixing * dF) @ coef


def _affine_fixed_point(T, n, zero=0.0, check=True):
    """Fixed point of an affine map T: R^n -> R^n read off T at 0 and the unit vectors;
    returns ``(x, det(I - A))``.  For n = 2 (the uniform readout) Cramer's rule, which also
    runs on mpmath numbers and on columns of points (the grid); for n > 2 (K groups) LAPACK.

    >>> x, det = _affine_fixed_point(lambda x: [0.5 * x[0] + 1, 0.25 * x[1] + 3], 2)
    >>> [float(v) for v in x], float(det)
    ([2.0, 4.0], 0.375)
    """
    if n != 2:
        b = np.asarray(T(np.zeros(n)), dtype=float)
        A = np.empty((n, n))
        for j in range(n):
            e = np.zeros(n)
            e[j] = 1.0
            A[:, j] = np.asarray(T(e), dtype=float) - b
        IA = np.eye(n) - A
        det = float(np.linalg.det(IA))
        if check and (det == 0 or not np.isfinite(det)):
            raise ConvergenceError("the linear part of the fixed point is singular "
                                   "(e.g. the interpolation peak at lambda = 0)",
                                   residual=abs(det))
        return np.linalg.solve(IA, b), det
    x0 = [zero] * n
    b = T(x0)
    cols = []
    for j in range(n):
        e = list(x0)
        e[j] = zero + 1
        Tj = T(e)
        cols.append([Tj[i] - b[i] for i in range(n)])
    # solve (I - A) x = b with A[:, j] = cols[j]
    a11, a12 = 1 - cols[0][0], -cols[1][0]
    a21, a22 = -cols[0][1], 1 - cols[1][1]
    det = a11 * a22 - a12 * a21
    if check and (det == 0 or abs(det) < 1e-300):
        raise ConvergenceError("the linear part of the fixed point is singular "
                               "(e.g. the interpolation peak at lambda = 0)",
                               residual=float(abs(det)))
    return [(b[0] * a22 - a12 * b[1]) / det, (a11 * b[1] - a21 * b[0]) / det], det


affine_fixed_point = _affine_fixed_point


def _complete(P: _Problem, V1, V2):
    """Given (V1, V2): exact (m, theta), psi, (q1, q2) by affine solves on the sweep."""
    return _complete_with_dets(P, V1, V2)[0]


def _complete_with_dets(P: Engine, V1, V2, check=True):
    """:func:`_complete` and the determinants of its two linear solves; ``check=False``
    (a batch of points, grid.py) leaves the singular / unstable points to the caller."""
    return _complete_full(P, V1, V2, check)[:3]


def _complete_full(P: Engine, V1, V2, check=True):
    """Given (V1, V2): (m, theta), psi, (q1, q2) by affine solves on the engine's own sweep,
    for every channel with ``closed_variance`` (the uniform readout and K groups alike).

    With (V1, V2) fixed the V-conjugates are fixed, hence the prior's resolvent solution
    (``prior.freeze``); the sweep is then affine in (m, theta), psi follows from psihat
    alone, and the sweep is affine in (q1, q2).  Returns ``(state, det_mt, det_q, frozen)``.
    """
    ch, prior = P.channel, P.prior
    zm, zv, zero = ch.zeros(V1)
    V1hat, V2hat, _ = P.v_hats(V1, V2)
    frozen = prior.freeze(Hats(None, None, V1hat, V2hat, None, None))
    sweeps = []
    # the (m, theta) map reads the mean conjugates only (its q1, q2 are not used)
    mean_hats = getattr(ch, "mean_hats", P.hats)

    def T_mt(x):
        m, th = ch.unpack_mean(x)
        hat, w_ = mean_hats(State(zm, zv, V1, V2, th, zv, m))
        new = prior.overlaps(hat, ch.m_update(th, w_), frozen)
        sweeps.append(new)
        return ch.pack_mean(new.m, new.theta)

    x, det_mt = _affine_fixed_point(T_mt, len(ch.pack_mean(zv, zv)), zero, check)
    m, theta = ch.unpack_mean(x)
    if ch.mean_vanishes():
        m = zv
    if getattr(prior, "cross", None) is None:
        # psi does not depend on m, theta or q: from T_mt's first evaluation (at all zeros)
        psi = sweeps[0].psi
    else:   # the cross sums couple psi to thetahat, hence to (m, theta): at the solution
        T_mt(ch.pack_mean(m, theta))
        psi = sweeps[-1].psi

    def T_q(x):
        q1, q2 = ch.unpack_second(x)
        hat, _ = P.hats(State(q1, q2, V1, V2, theta, psi, m))
        new = prior.overlaps(hat, m, frozen)
        return ch.pack_second(new.q1, new.q2)

    x, det = _affine_fixed_point(T_q, len(ch.pack_second(zm, zv)), zero, check)
    if check and det <= 0:
        raise ConvergenceError(
            "no finite fixed point: the (q1, q2) system is past its stability limit "
            "(test error diverges; increase lambda or move away from alpha = beta)",
            residual=float(det))
    q1, q2 = ch.unpack_second(x)
    return State(q1, q2, V1, V2, theta, psi, m), det_mt, det, frozen


def _residual(P: _Problem, s: State, new=None):
    """The largest relative move of one sweep from ``s`` (``new``: that sweep, if formed)."""
    new = P.sweep(s) if new is None else new
    return max(abs(float(a - b)) / max(1.0, abs(float(b))) for a, b in zip(new, s)), new




complete = _complete


def solve_general(engine: Engine, start: State, tol=1e-11, max_iter=2000, b0=0.0):
    """Solve any channel (no closed (V1, V2) subsystem needed) by Anderson-mixed damped
    iteration of the whole sweep on ``(State, b0)`` (uniform readout, double precision).

    Returns ``(state, b0, iterations)``; the stopping rule is the verification rule of the
    structured solver: every order parameter moves by less than ``tol`` (relative above 1).

    >>> from srfsym.theory.channels.kappa_quadrature import channel_data
    >>> from srfsym.theory.spectral.marchenko_pastur import MarchenkoPastur
    >>> P = _Problem(channel_data("tanh", "sin", 1.13, 1.02, 1.0, nodes=72),
    ...              MarchenkoPastur(1.0, 1.02), 1.0, 0.1, 1.0)
    >>> s, _, _ = solve_general(P, _START)
    >>> V, _ = _solve_v_newton(P, (3.0, 3.0), 1e-10)
    >>> bool(abs(s.V1 / V[0] - 1) < 1e-9)
    True
    """
    channel = engine.channel

    def G(x):
        state = State(*x[:7])
        step = channel.conjugates(state, x[7] if channel.trained_bias else None)
        new = engine.prior.overlaps(step.hats, step.m)
        return np.array([*new, step.b0 if step.b0 is not None else 0.0], dtype=float)

    x0 = np.array([*start, b0], dtype=float)
    x, it, _ = _anderson(G, x0, tol * 0.1, max_iter)
    return State(*x[:7]), float(x[7]), it


#: the readout point's checks (alpha, lambda, beta), written once in the problem value
_validate = check_readout_point


def _validate_solver(tol, max_iter):
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
