r"""srfsym's parameters in the normalisation of Dandi, Pesce, Cui, Krzakala, Lu, Loureiro,
arXiv:2410.18938 (DPC+24), and back (docs/theory.md, *Correspondence with DPC+24*).

DPC+24 write the data as ``x ~ N(0, I_d / d)``, the readout objective as
``(1/2n) sum_i (y_i - <b, phi_i>)^2 + lambda_D |b|^2`` (no ``1/sqrt(p)`` in the
predictor) and the learning rate of the step as ``eta = eta_D d``; srfsym takes
``x ~ N(0, I_d)``, ``sum_i (y_i - <a, phi_i>/sqrt(p))^2 + lambda |a|^2`` and ``eta =
eta_tilde sqrt(p)`` with the readout ``1/sqrt(p)`` (docs/theory.md (a)).  The two ridge
problems have the same minimiser ``b = a / sqrt(p)`` when ``lambda_D = lambda p / (2 n)``,
and the two steps the same spike strength ``r`` when ``eta_D = eta_tilde / beta``.

>>> to_dpc24(eta=3.0, lam=0.1, alpha=2.0, beta=0.5)
{'eta': 6.0, 'lam': 0.0125, 'alpha0_alpha_beta': 'unchanged'}
>>> from_dpc24(eta=6.0, lam=0.0125, alpha=2.0, beta=0.5)
{'eta': 3.0, 'lam': 0.1}
"""
from __future__ import annotations

__all__ = ["to_dpc24", "from_dpc24", "readout_scale"]


def _positive(name, v):
    v = float(v)
    if not v > 0 or v != v or v == float("inf"):
        raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    return v


def to_dpc24(eta=None, lam=None, alpha=None, beta=1.0) -> dict:
    """srfsym's learning rate ``eta`` (eta-tilde) and ridge penalty ``lam`` (its sum loss) in
    DPC+24's normalisation: ``eta_D = eta / beta`` (the same spike strength ``r``) and
    ``lambda_D = lam beta / (2 alpha)`` (the same readout, ``b = a / sqrt(p)``).  The ratios
    ``alpha0 = n0/d``, ``alpha = n/d``, ``beta = p/d`` are the same in both."""
    beta = _positive("beta", beta)
    out = {}
    if eta is not None:
        out["eta"] = float(eta) / beta
    if lam is not None:
        if alpha is None:
            raise ValueError("the ridge penalty converts with alpha = n/d: give alpha")
        out["lam"] = float(lam) * beta / (2.0 * _positive("alpha", alpha))
    out["alpha0_alpha_beta"] = "unchanged"
    return out


def from_dpc24(eta=None, lam=None, alpha=None, beta=1.0) -> dict:
    """The inverse of :func:`to_dpc24`: DPC+24's ``eta_D`` and ``lambda_D`` as srfsym's
    ``eta`` and ``lam``."""
    beta = _positive("beta", beta)
    out = {}
    if eta is not None:
        out["eta"] = float(eta) * beta
    if lam is not None:
        if alpha is None:
            raise ValueError("the ridge penalty converts with alpha = n/d: give alpha")
        out["lam"] = float(lam) * 2.0 * _positive("alpha", alpha) / beta
    return out


def readout_scale(p) -> float:
    """DPC+24's readout ``b`` is srfsym's ``a`` times this factor, ``1/sqrt(p)`` (their
    predictor ``<b, phi>`` is srfsym's ``<a, phi>/sqrt(p)``).

    >>> readout_scale(4)
    0.5
    """
    return 1.0 / _positive("p", p) ** 0.5
