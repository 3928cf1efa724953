"""Checks of user parameters shared by the public functions: a wrong type or size is a
clear error of the ValueError family, never numpy's or LAPACK's complaint from deep inside.

>>> real_scalar("eta", 3)
3.0
>>> real_scalar("eta", None)
Traceback (most recent call last):
...
srfsym.core.checks.ParameterTypeError: eta must be a real number, got None
>>> real_scalar("eta", True)
Traceback (most recent call last):
...
srfsym.core.checks.ParameterTypeError: eta must be a real number, got True (a bool)
"""
from __future__ import annotations

import decimal
import fractions
import math
import os

import numpy as np

__all__ = ["ParameterTypeError", "real_scalar", "scalar_like", "check_memory", "TooLargeError",
           "MAX_MEMORY_GB"]


class ParameterTypeError(TypeError, ValueError):
    """A parameter of the wrong type or shape (both a TypeError and a ValueError)."""


class TooLargeError(ValueError):
    """A size that would need more memory or time than srfsym allows (refused up front)."""


#: Largest memory (GiB) a computation may allocate by a user-given size.
MAX_MEMORY_GB = 8.0


def real_scalar(name, value, *, allow_inf=False, allow_str=False) -> float:
    """``value`` as a float: a real number (numpy scalars and 0-d arrays included; decimal
    strings with ``allow_str``); not a bool, None, a list or an array; finite unless
    ``allow_inf`` (``+inf`` only)."""
    if isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(f"{name} must be a real number, got {value!r} (a bool)")
    if isinstance(value, (list, tuple, set, dict, np.ndarray)):
        value = scalar_like(name, value)        # one element: its item; else a named error
    if isinstance(value, str) and allow_str:
        try:
            v = float(value)
        except ValueError:
            raise ParameterTypeError(f"{name} must be a real number, got {value!r}") from None
    elif isinstance(value, (int, float, np.integer, np.floating, decimal.Decimal,
                            fractions.Fraction)) or (
            hasattr(value, "is_real") and hasattr(value, "evalf")) or type(value).__name__ == "mpf":
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ParameterTypeError(f"{name} must be a real number, got {value!r}") from None
    else:
        kind = type(value).__name__
        raise ParameterTypeError(f"{name} must be a real number, got {value!r}"
                                 + ("" if value is None else f" (a {kind})"))
    if math.isnan(v) or (math.isinf(v) and not (allow_inf and v > 0)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return v


def scalar_like(name, value):
    """``value`` unchanged if it can be one real number (a 0-d array becomes its item);
    :class:`ParameterTypeError` for None, bools, sequences and arrays of dimension >= 1."""
    if value is None or isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(f"{name} must be a real number, got {value!r}")
    if isinstance(value, (list, tuple, set, dict)):
        raise ParameterTypeError(f"{name} must be a single real number, got a "
                                 f"{type(value).__name__} {value!r}")
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ParameterTypeError(f"{name} must be a single real number, got an array of "
                                     f"shape {value.shape}")
        return value.item()
    if isinstance(value, complex):
        raise ParameterTypeError(f"{name} must be a real number, got {value!r}")
    return value


def check_memory(nbytes: float, what: str, limit_gb: float = MAX_MEMORY_GB) -> None:
    """Refuse (:class:`TooLargeError`) an allocation of ``nbytes`` above ``limit_gb`` GiB or
    above the memory the machine has.

    >>> check_memory(8 * 1e6, "a test array")
    >>> check_memory(8 * 1e12, "a 10^6 x 10^6 matrix")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.core.checks.TooLargeError: a 10^6 x 10^6 matrix needs about 7.5e+03 GiB of memory (limit ...
    """
    gib = nbytes / 2**30
    limit = limit_gb
    try:
        limit = min(limit, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        pass
    if gib > limit:
        raise TooLargeError(f"{what} needs about {gib:.2g} GiB of memory (limit {limit:.3g} GiB); "
                            "refused before allocating")
