"""``srfsym regen-reference``: recompute the 30-digit reference files."""
from __future__ import annotations

from pathlib import Path

from .common import out, status


def cmd_regen_reference(args):
    from ..reference import regenerate
    paths = regenerate(Path(args.out), quick=args.quick, step=status)
    for p in paths:
        out(f"wrote {p}")


def register(sub):
    p = sub.add_parser(
        "regen-reference", help="recompute tests/reference/*.json at 30 digits",
        description="Recompute the 30-digit reference values (Hermite constants, cGET "
        "coefficients, mappings, bounds, fixed points) that the test suite compares against, "
        "and write them as JSON files, one per table; the output is deterministic, so a clean "
        "checkout reproduces the committed files bit for bit.")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "tests" /
                                         "reference"), help="folder of the JSON files")
    p.add_argument("--quick", action="store_true", help="only the small subset used by tests")
    p.set_defaults(func=cmd_regen_reference)
