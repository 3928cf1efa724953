"""A disk cache of derived closed forms (the Gaussian expectations of an activation, with the
rules and ``sympy.integrate`` attempts that produced them or failed): a second run of the same
expression, in any process, reads the answer instead of deriving it again.

Entries are keyed by what they were derived from and by what derived them: the expression's
``srepr``, the parameters, the srfsym version and a hash of the sources of the package that
derives (``srfsym/symbolic``), so an edited rule table never reads an old answer.  The folder
is ``$SRFSYM_CACHE_DIR``, else ``$XDG_CACHE_HOME/srfsym`` (``~/.cache/srfsym``);
``SRFSYM_CACHE=off`` turns the cache off; :func:`clear_cache` (``srfsym cache --clear``)
empties it.  The entries are this user's own pickles, written atomically.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path

__all__ = ["cache_dir", "cache_enabled", "cached_on_disk", "clear_cache", "code_key"]


def cache_enabled() -> bool:
    """False when ``SRFSYM_CACHE`` is ``off`` (or ``0``, ``no``, ``false``)."""
    return os.environ.get("SRFSYM_CACHE", "on").strip().lower() not in ("off", "0", "no",
                                                                          "false")


def cache_dir() -> Path:
    """The cache folder (see the module doc; not created here)."""
    explicit = os.environ.get("SRFSYM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "srfsym"


@functools.lru_cache(maxsize=8)
def code_key(package: str) -> str:
    """The srfsym version and a hash of the sources of ``srfsym/<package>``."""
    from .version import __version__
    root = Path(__file__).resolve().parents[1] / package
    h = hashlib.sha256(__version__.encode())
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return f"{__version__}-{h.hexdigest()[:16]}"


def _path(namespace, key):
    digest = hashlib.sha256(repr(key).encode()).hexdigest()
    return cache_dir() / namespace / f"{digest}.pickle"


def cached_on_disk(namespace, key, compute):
    """``compute()``, or its answer stored under ``(namespace, key)`` by an earlier call (in any
    process).  A cache that cannot be read or written is skipped, never an error.

    Examples
    --------
    >>> import tempfile; saved = dict(os.environ)
    >>> os.environ.update(SRFSYM_CACHE_DIR=tempfile.mkdtemp(), SRFSYM_CACHE="on")
    >>> calls = []
    >>> [cached_on_disk("demo", ("x", 1), lambda: calls.append(1) or 42) for _ in range(2)]
    [42, 42]
    >>> len(calls), clear_cache()
    (1, 1)
    >>> os.environ.clear(); os.environ.update(saved)
    """
    if not cache_enabled():
        return compute()
    path = _path(namespace, key)
    try:
        with open(path, "rb") as fh:
            stored_key, value = pickle.load(fh)
        if stored_key == key:
            return value
    except Exception:          # noqa: BLE001 - absent, torn, from another Python: recompute
        pass
    value = compute()
    try:
        from .files import atomic_write
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda tmp: Path(tmp).write_bytes(pickle.dumps((key, value))))
    except Exception:          # noqa: BLE001 - read-only home, unpicklable value: no cache
        pass
    return value


def clear_cache() -> int:
    """Remove every cached entry; returns how many were removed."""
    n = 0
    root = cache_dir()
    if root.is_dir():
        for path in root.rglob("*.pickle"):
            try:
                path.unlink()
                n += 1
            except OSError:
                pass
    return n
