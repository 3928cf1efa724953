"""``srfsym cache``: where the derived closed forms are cached on disk, and clearing it."""
from __future__ import annotations

from .common import out


def cmd_cache(args):
    from ..core.diskcache import cache_dir, cache_enabled, clear_cache
    if args.clear:
        out(f"removed {clear_cache()} cached entries from {cache_dir()}")
        return
    entries = sum(1 for _ in cache_dir().rglob("*.pickle")) if cache_dir().is_dir() else 0
    out(f"cache of derived closed forms: {cache_dir()} ({entries} entries; "
        + ("on" if cache_enabled() else "off: SRFSYM_CACHE=off") + ")")
    out("entries are keyed by the expression, the srfsym version and the derivation's source; "
        "SRFSYM_CACHE_DIR moves the folder, SRFSYM_CACHE=off turns it off")


def register(sub):
    p = sub.add_parser("cache", help="the disk cache of derived closed forms (show, --clear)",
                       description="Closed forms of Gaussian expectations derived once (rule "
                       "table, sympy.integrate, 30-digit check) are kept on disk and reused by "
                       "later runs; this shows the folder and clears it.")
    p.add_argument("--clear", action="store_true", help="remove every cached entry")
    p.set_defaults(func=cmd_cache)
