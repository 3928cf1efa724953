"""Command-line interface: ``srfsym SUBCOMMAND ...`` (the only package that prints).

Subcommands: ``derive``, ``activation``, ``coefficients``, ``mapping``, ``error``,
``bounds``, ``curve``, ``spectrum``, ``simulate``, ``sweep``, ``regen-reference``.  Every numeric subcommand has
``--json``; high-precision values are printed as decimal strings with their method.
Each subcommand lives in its own module with a ``register(sub)`` that adds its parser.
"""
from __future__ import annotations

import argparse
import sys

from . import activation, derive, reference, simulation, spectrum, sweep, theory
from .common import CLIError

#: subcommand modules in the order ``srfsym --help`` lists them
COMMANDS = (derive, activation, theory, spectrum, simulation, sweep, reference)


def build_parser():
    ap = argparse.ArgumentParser(prog="srfsym", description=__doc__.splitlines()[0])
    ap.add_argument("--integrate-timeout", type=float, default=None,
                    help="seconds for the sympy.integrate attempt on expressions no rule covers "
                         "(default 2; 0 skips it and goes straight to quadrature)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    for module in COMMANDS:
        module.register(sub)
    return ap


def main(argv=None):
    from ..activations import ActivationError
    from ..gaussian import DivergentExpectationError, set_integrate_timeout
    ap = build_parser()
    args = ap.parse_args(argv)
    if getattr(args, "cmd", None) in ("error", "simulate") and not args.alpha:
        ap.error("--alpha needs at least one value")
    if getattr(args, "cmd", None) == "curve" and not args.simulate:
        for flag, given in (("--shared-first-layer", args.shared_first_layer),
                            ("--sim-alpha", args.sim_alpha is not None)):
            if given:
                ap.error(f"{flag} only applies with --simulate")
    try:
        if args.integrate_timeout is not None:
            set_integrate_timeout(args.integrate_timeout)
        args.func(args)
    except (CLIError, ActivationError, DivergentExpectationError, ValueError,
            ArithmeticError) as exc:          # ArithmeticError: FloatingPointError, overflow
        print(f"srfsym: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:                 # sizes refused before any work
        print(f"srfsym: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:                     # an output file or folder that cannot be written
        print(f"srfsym: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # ConvergenceError and friends: say what, not a traceback
        from ..fixed_point import ConvergenceError
        if isinstance(exc, ConvergenceError):
            print(f"srfsym: error: {exc} (last residual {exc.residual})", file=sys.stderr)
            return 3
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
