"""Command-line interface: ``srfsym SUBCOMMAND ...`` (the only package that prints).

Subcommands: ``derive``, ``activation``, ``coefficients``, ``mapping``, ``error``,
``bounds``, ``curve``, ``spectrum``, ``simulate``, ``sweep``, ``regen-reference``.  Every numeric subcommand has
``--json``; high-precision values are printed as decimal strings with their method.
Each subcommand lives in its own module with a ``register(sub)`` that adds its parser.
"""
from __future__ import annotations

import argparse
import sys

from .. import __version__
from . import activation, derive, reference, simulation, spectrum, sweep, theory
from .common import (CLIError, HelpFormatter, check_output_path, configure_feedback,
                     finish_parsers, warnings_once)

#: subcommand modules in the order ``srfsym --help`` lists them
COMMANDS = (derive, activation, theory, spectrum, simulation, sweep, reference)


DESCRIPTION = ("srfsym: symbolic-numeric workbench for the spiked Random Features model\n"
               "(a two-layer network after one giant gradient step, with a ridge readout).")
EPILOG = """\
start with:
  srfsym derive                 the derivation chain for the built-in example, step by step
  srfsym COMMAND --help         every option with its default, and an example

The equations are stated in docs/theory.md; section letters such as (c) or (j.3) in the
output refer to it."""


def build_parser():
    ap = argparse.ArgumentParser(prog="srfsym", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=HelpFormatter)
    ap.add_argument("--version", action="version", version=f"srfsym {__version__}")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress bars or status lines on stderr (results, warnings and "
                         "errors are still printed)")
    ap.add_argument("--integrate-timeout", type=float, default=None,
                    help="seconds for the sympy.integrate attempt on expressions no rule covers; "
                         "0 skips it and goes straight to quadrature (default: 2)")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    for module in COMMANDS:
        module.register(sub)
    finish_parsers(sub)
    return ap


def _check_outputs(args):
    """Output files are checked before any work (a bad path fails in a second, not later)."""
    if getattr(args, "plot", None):
        check_output_path("--plot", args.plot)


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
    handler = configure_feedback(args.quiet)
    try:
        _check_outputs(args)
        if args.integrate_timeout is not None:
            set_integrate_timeout(args.integrate_timeout)
        with warnings_once():
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
    finally:
        handler.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
