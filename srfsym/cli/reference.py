"""``srfsym regen-reference``: recompute the 30-digit reference files; ``srfsym reference``:
reference values of a user's own cases."""
from __future__ import annotations

import json
from pathlib import Path

from .common import CLIError, emit_json, out, status

#: a complete cases file (the help's example; tests/test_reference_cases.py runs it)
EXAMPLE_CASES = """[[constants]]
activation = "erf"
[[cget]]
activation = "tanh"
kappa = 0.7
r = 0.9
c = 1
[[mapping]]
student = "tanh"
teacher = "sin"
eta = 3
alpha0 = 20
[[bounds]]
student = "sin"
teacher = "sin"
r = 0.8
c = 1.3
gamma = 1
[[fixed_point]]
student = "sin"
teacher = "sin"
alpha0 = 20
eta = 3
lam = 0.1
alpha = 0.5
"""

CASES_EXAMPLE = ("a cases file (TOML; the same arrays of tables in JSON):\n"
                 + "".join(f"  {line}\n" for line in EXAMPLE_CASES.splitlines())
                 + "\nexample:\n  srfsym reference cases.toml --dps 30 --out values.json")


def cmd_regen_reference(args):
    from ..reference import regenerate
    paths = regenerate(Path(args.out), quick=args.quick, step=status)
    for p in paths:
        out(f"wrote {p}")


def cmd_reference(args):
    from ..core.files import atomic_write
    from ..reference import compute_cases, load_cases
    try:
        cases = load_cases(args.cases)
        if not 5 <= args.dps <= 300:
            raise ValueError(f"--dps must be an integer from 5 to 300, got {args.dps}")
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    result = compute_cases(cases, args.dps, step=status)
    if args.out is None:
        emit_json(result)
        return
    text = json.dumps(result, indent=1) + "\n"
    atomic_write(Path(args.out), lambda tmp: Path(tmp).write_text(text))
    n = sum(len(v) for v in result["values"].values())
    out(f"wrote {args.out}: {n} case(s) at {args.dps} digits")


def register(sub):
    p = sub.add_parser(
        "regen-reference", help="recompute tests/reference/*.json at 30 digits",
        description="Recompute the 30-digit reference values (Hermite constants, cGET "
        "coefficients, mappings, bounds, fixed points) that the test suite compares against, "
        "and write them as JSON files, one per table; the output is deterministic, so a clean "
        "checkout reproduces the committed files bit for bit.  For your own cases: 'srfsym "
        "reference CASES.toml'.  Key names: the bounds are upper_bound, lower_bound, "
        "kernel_baseline, as in every other output (files written before named them upper, "
        "lower, kernel; srfsym.reference.load reads both).")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "tests" /
                                         "reference"), help="folder of the JSON files")
    p.add_argument("--quick", action="store_true", help="only the small subset used by tests")
    p.set_defaults(func=cmd_regen_reference)

    p = sub.add_parser(
        "reference", help="high-precision reference values of your own cases (JSON)",
        description="Evaluate your own cases at --dps digits: Hermite constants "
        "([[constants]]), cGET coefficients ([[cget]]), the step's mapping ([[mapping]]), "
        "the bounds ([[bounds]]) and the fixed point ([[fixed_point]]).  Every value is a "
        "decimal string with its method ('exact': a closed form checked against quadrature; "
        "'numeric') and how it was obtained (precision, kappa nodes, the node change as an "
        "error bound); the names are those of every other output (upper_bound, lower_bound, "
        "kernel_baseline, spike_strength, test_error, ...).", epilog=CASES_EXAMPLE)
    p.add_argument("cases", metavar="CASES", help="the cases: a TOML file, or JSON (.json)")
    p.add_argument("--dps", type=int, default=30, help="decimal digits of every value "
                   "(default 30; 5 to 300)")
    p.add_argument("--out", help="write the JSON to this file (default: standard output)")
    p.set_defaults(func=cmd_reference)
