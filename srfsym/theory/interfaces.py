r"""The two sides of the fixed-point engine, as contracts: the channel and the spectral side.

The fixed point of docs/theory.md (f) (uniform readout) and (k.7) (a readout vocabulary of K
letters) is one map with two halves::

    State --channel--> Hats (+ the stationary m, b0) --spectral side--> State

* the **channel** (energetic side) holds everything that depends on the loss and on the
  labels: the kappa rule and the cGET coefficients of one point, the coupling
  ``alpha/beta``, and the rule that turns order parameters into conjugates;
* the **spectral side** (prior, entropic side) holds everything that depends on the ridge
  penalty and on the spectrum of ``Omega = W Pi W^T``: it turns conjugates into order
  parameters through resolvent sums.

Neither side knows the other; the engine (:mod:`srfsym.theory.engine`) composes them and
solves.  A new loss is a new :class:`Channel`; a new spectrum is a new
:class:`SpectralSide`; neither touches the other half.

What a channel receives
-----------------------
At construction: the **kappa rule and the cGET coefficients** of one point, as
:class:`~srfsym.theory.channels.kappa_quadrature.ChannelData` (K = 1) or
:class:`~srfsym.theory.channels.kappa_quadrature.GroupChannelData` (K letters): nodes ``kappa_n``, weights
``w_n`` (``sum w_n = 1``, so ``E_kappa f = sum_n w_n f(kappa_n)``), per group ``j`` the
coefficients ``mu0_j(kappa_n)``, ``mu1_j(kappa_n)``, ``mu*_j(kappa_n)^2`` and the teacher
moments ``h, h1, h2 (kappa_n)`` (docs/theory.md (d), (e)); and ``alpha = n/d``,
``beta = p/d``.  The couplings are ``alpha/beta`` on the p-normalised overlaps and
``alpha/sqrt(beta)`` on ``theta, psi``.

At every sweep: a :class:`~srfsym.theory.state.State` of **order parameters per group**
(K = 1: scalars; K letters: ``V1, q1`` K x K, ``V2, q2, theta, psi, m`` K-vectors) and,
with a trained output bias, ``b0``.  From them, per kappa node,

    V(kappa) = mu1^T V1 mu1 + sum_j mu*_j^2 V2_j          (replica variance)
    Q(kappa) = mu1^T q1 mu1 + sum_j mu*_j^2 q2_j
    b(kappa) = b0 + sum_j (mu0_j m_j + kappa mu1_j theta_j)
    the overlap of the prediction with the teacher's z:  sum_j mu1_j psi_j

and the prediction given kappa is Gaussian with these moments (the cGET of docs/theory.md (d)).

What a channel returns
----------------------
:meth:`Channel.conjugates` returns a :class:`ChannelStep`: the conjugates as kappa
expectations of per-kappa quantities (with ``f = -l'(y, prox)``, ``E`` over the label noise
and the Gaussian fields at fixed kappa; for the square loss ``E f = (h - b) w``,
``E f^2 = eps(kappa) w^2``, ``E(-d_omega f) = w = 1/(1 + V)``)::

    V1hat_jl = alpha/beta      E_kappa[mu1_j mu1_l E(-d_omega f)]
    V2hat_j  = alpha/beta      E_kappa[mu*_j^2    E(-d_omega f)]
    q1hat_jl = alpha/beta      E_kappa[mu1_j mu1_l E f^2]
    q2hat_j  = alpha/beta      E_kappa[mu*_j^2    E f^2]
    thetahat_j = alpha/sqrt(beta) E_kappa[kappa mu1_j E f]
    psihat_j   = alpha/sqrt(beta) E_kappa[mu1_j (E[z f] + (mu1 . psi) E(-d_omega f))]

and the **stationarity conditions** solved for the mean parameters at the other order
parameters fixed: ``m`` from ``E_kappa[mu0_j E f] = 0`` (j = 1..K) and, only with a trained
bias, ``b0`` from ``E_kappa[E f] = 0``.  The hats are those at the state's own ``m`` and
``b0`` (a channel may solve ``m`` first and return the hats at the new ``m``; the square
loss does not need to, its hats of V, q do not depend on m).

:meth:`Channel.observables` returns the observables at a state as a dict of numbers, at
least ``test_error`` (mean squared error on a fresh sample, docs/theory.md (f)) and
``train_error``; a channel may add more (training loss, classification errors, ...).

Capabilities the engine may use
-------------------------------
``closed_variance = True`` declares that the V-conjugates depend on ``(V1, V2)`` only and
that the rest of the sweep is affine in ``(m, theta)`` and then in ``(q1, q2)`` (the square
loss).  Then :meth:`Channel.v_hats` must be given, and the engine solves the closed
``(V1, V2)`` subsystem by Newton and completes the others by linear solves.  Otherwise the
engine iterates the whole state (Anderson mixing on ``(State, b0)``).

What the spectral side receives and returns
-------------------------------------------
:class:`SpectralSide` answers resolvent sums of ``Omega`` at ``S = lambda' + Vhat_1 D``:
the eleven real sums of :class:`~srfsym.theory.spectral.moments.SpectralMoments` at
``lambda' = lambda + Vhat_2 > 0`` (ridge prior, ``z = -lambda'``), and the pair
``(E 1/S, E D/S)`` at a complex ``lambda'`` (the feature spectrum, ``lambda = -(n/p) z``,
``z = x + i eps``).  The prior equations of docs/theory.md (f), (g) turn them into the order
parameters (:func:`srfsym.theory.engine.prior_overlaps`); for K letters the block-Wishart
equation of docs/theory.md (k.5), (k.7) does
(:class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`).  Both priors answer
``freeze(hats)`` (the resolvent solution at the conjugates' ``(V1hat, V2hat)``, reused while
those are fixed) and ``overlaps(hats, m, frozen=None)`` (the order parameters).

>>> from srfsym.theory.channels.kappa_quadrature import channel_data
>>> from srfsym.theory.channels.square import SquareLossChannel
>>> ch = SquareLossChannel(channel_data("tanh", "sin", 1.1, 1.0, 1.0, nodes=48), 1.0, 1.0)
>>> isinstance(ch, Channel), ch.closed_variance, ch.K
(True, True, 1)
>>> step = ch.conjugates(State(0.1, 0.2, 3.0, 3.0, 0.5, 0.5, 1.5))
>>> sorted(step._fields)
['b0', 'hats', 'm']
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

from .state import Hats, State

__all__ = ["Channel", "ChannelStep", "SpectralSide", "GroupSpectralSide", "Hats", "State"]


class ChannelStep(NamedTuple):
    """What a channel returns at one state: the conjugates, the stationary ``m`` (and ``b0``,
    ``None`` without a trained bias)."""
    hats: Hats
    m: object
    b0: object = None


class Channel(ABC):
    """The energetic side of the fixed point (see the module text for the full contract).

    Attributes every channel sets: ``K`` (number of readout groups), ``alpha``, ``beta``,
    ``closed_variance`` (bool), ``trained_bias`` (bool), ``precision`` ("double" or
    "mpmath:<dps>").
    """

    K: int = 1
    closed_variance: bool = False
    trained_bias: bool = False
    precision: str = "double"

    @abstractmethod
    def conjugates(self, state: State, b0=None) -> ChannelStep:
        """The conjugates at ``state`` (and ``b0``) and the stationary ``m`` (and ``b0``)."""

    @abstractmethod
    def observables(self, state: State, b0=None) -> dict:
        """Observables at a state: at least ``test_error`` and ``train_error``."""

    def v_hats(self, V1, V2):
        """``(V1hat, V2hat, w)`` from ``(V1, V2)`` alone; only when ``closed_variance``."""
        raise NotImplementedError(f"{type(self).__name__} has no closed (V1, V2) subsystem")


class SpectralSide(ABC):
    """The prior side: resolvent sums over the spectrum of ``Omega = W Pi W^T``.

    ``moments(lam_prime, v1hat)``: the eleven normalised real sums at ``S = lambda' + Vhat_1 D``
    (:class:`~srfsym.theory.spectral.moments.SpectralMoments`); ``stieltjes_pair(lam_prime,
    v1hat, previous=None, dps=None)``: ``(E 1/S, E D/S)`` at complex arguments, on the physical
    branch (``Im >= 0`` when ``Im S < 0``; ``previous`` breaks ties).  Back ends may add
    ``moments_array`` (batches of points, NaN outside the domain) and ``moments_mpmath``.
    """

    @abstractmethod
    def moments(self, lam_prime, v1hat):
        """The eleven sums at real ``lam_prime > 0``, ``v1hat >= 0``."""

    @abstractmethod
    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        """``(E 1/S, E D/S)`` at complex ``lam_prime``, ``v1hat``."""


class GroupSpectralSide(ABC):
    """The prior side of a readout vocabulary (K groups of neurons by letter) when the bulk is
    not the block-Wishart law of isotropic rows: the realised layer split by letter
    (``name = "step"``) or the exact law of the step's bulk (``"exact"``).

    Attributes ``vocabulary``, ``K``, the uniform-readout parameters ``r, c, gamma`` and the
    letters' ``group_r, group_c`` (the channel side's inputs); ``group_prior(lam, beta)``: a
    prior with the interface of :class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`
    (``prior``, ``prior_units``, ``prior_linear``, ``second_moments``, ``freeze``,
    ``overlaps``).
    """

    name = "group"

    @abstractmethod
    def group_prior(self, lam, beta):
        """The K-group prior at ridge ``lam`` and width ratio ``beta``."""
