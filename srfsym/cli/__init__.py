"""Command-line interface: ``srfsym SUBCOMMAND ...`` (the only package that prints).

Subcommands: ``derive``, ``activation``, ``coefficients``, ``mapping``, ``error``,
``bounds``, ``curve``, ``spectrum``, ``scaling``, ``simulate``, ``sweep``, ``target``, ``regen-reference``, ``cache``.  Every numeric subcommand has
``--json``; high-precision values are printed as decimal strings with their method.
Each subcommand lives in its own module with a ``register(sub)`` that adds its parser.
"""
from __future__ import annotations

import argparse
import io
import sys

from ..core.version import __version__
from . import (activation, cache, curves, derive, reference, scaling, simulation, spectrum, sweep,
               target, theory)
from .common import (CLIError, HelpFormatter, Interrupted, configure_feedback, finish_parsers,
                     warnings_once)

#: subcommand modules in the order ``srfsym --help`` lists them
COMMANDS = (derive, activation, target, theory, curves, spectrum, scaling, simulation, sweep, reference, cache)


DESCRIPTION = ("srfsym: symbolic-numeric workbench for the spiked Random Features model\n"
               "(a two-layer network after one, or several, giant gradient steps, with a ridge or any\n"
               "convex readout).")
EPILOG = """\
start with:
  srfsym derive                 the derivation chain for the built-in example, step by step
  srfsym COMMAND --help         every option with its default, and an example

The equations are stated in docs/theory.md; section letters such as (c) or (j.3) in the
output refer to it."""


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, ``srfsym: error: <what> (srfsym CMD --help for ...)``: the
    default prints the whole usage and, for the ``error`` command, ``srfsym error: error:``."""

    def error(self, message):
        self.exit(2, f"srfsym: error: {message} (see '{self.prog} --help')\n")


def build_parser():
    ap = _Parser(prog="srfsym", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=HelpFormatter)
    ap.add_argument("--version", action="version", version=f"srfsym {__version__}")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress bars or status lines on stderr (results, warnings and "
                         "errors are still printed)")
    ap.add_argument("--integrate-timeout", type=float, default=None,
                    help="seconds for the sympy.integrate attempt on expressions no rule covers; "
                         "0 skips it and goes straight to quadrature (default: 2)")
    ap.add_argument("--time-limit", type=float, default=600.0,
                    help="seconds for all symbolic and quadrature work of one command "
                         "(default 600; 0 means no limit); past it srfsym stops with an error")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    for module in COMMANDS:
        module.register(sub)
    finish_parsers(sub)
    return ap


def main(argv=None):
    from ..symbolic.activations import ActivationError
    from ..symbolic import gaussian
    from ..symbolic.gaussian import DivergentExpectationError, set_integrate_timeout
    ap = build_parser()
    args = ap.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)   # for the output's metadata
    if getattr(args, "cmd", None) in ("error", "simulate") and not args.alpha:
        ap.error("--alpha needs at least one value")
    if getattr(args, "cmd", None) == "curve" and not args.simulate:
        for flag, given in (("--shared-first-layer", args.shared_first_layer),
                            ("--sim-alpha", args.sim_alpha is not None)):
            if given:
                ap.error(f"{flag} only applies with --simulate")
    if not (args.time_limit >= 0 and args.time_limit < float("inf")):
        ap.error(f"--time-limit must be a number of seconds >= 0, got {args.time_limit}")
    from ..core.budget import time_budget
    handler = configure_feedback(args.quiet)
    real_stdout = sys.stdout
    sys.stdout = buffer = io.StringIO()   # stdout carries a complete result or nothing
    integrate_timeout = gaussian.INTEGRATE_TIMEOUT   # restored: main() may run in-process
    try:
        _check_paths(args)
        if args.integrate_timeout is not None:
            set_integrate_timeout(args.integrate_timeout)
        with warnings_once(), time_budget(args.time_limit if args.time_limit > 0 else None):
            args.func(args)
    except Interrupted as exc:                 # Ctrl-C with what was kept (a sweep's rows)
        return _fail(real_stdout, exc, 130)
    except KeyboardInterrupt:
        return _fail(real_stdout, "interrupted", 130)
    except (CLIError, ActivationError, DivergentExpectationError, ValueError,
            ArithmeticError) as exc:          # ArithmeticError: FloatingPointError, overflow
        return _fail(real_stdout, exc)
    except MemoryError as exc:                 # sizes refused before any work
        return _fail(real_stdout, str(exc) or "not enough memory for this size")
    except OSError as exc:                     # an output file or folder that cannot be written
        return _fail(real_stdout, exc)
    except RecursionError:
        return _fail(real_stdout, "expression too deeply nested for the symbolic engine")
    except TypeError as exc:                   # a bad value the checks did not name
        return _fail(real_stdout, f"bad input ({exc})")
    except Exception as exc:  # ConvergenceError and friends: say what, not a traceback
        from ..theory.fixed_point import ConvergenceError
        if isinstance(exc, ConvergenceError):
            return _fail(real_stdout, exc if exc.residual is None
                         else f"{exc} (last residual {exc.residual})", 3)
        sys.stdout = real_stdout
        raise
    finally:
        handler.flush()
        set_integrate_timeout(integrate_timeout)
    sys.stdout = real_stdout
    try:
        real_stdout.write(buffer.getvalue())
        real_stdout.flush()
    except OSError as exc:                     # stdout itself cannot be written (/dev/full)
        print(f"srfsym: error: cannot write the output: {exc}", file=sys.stderr)
        return 2
    return 0


def _fail(real_stdout, exc, code=2):
    sys.stdout = real_stdout
    message = " ".join(str(exc).split()) or type(exc).__name__
    kind = "" if code == 130 else "error: "          # an interruption is not an error
    print(f"srfsym: {kind}{message}", file=sys.stderr)
    return code


def _check_paths(args):
    """Output paths are checked (and normalised) before any work."""
    from .paths import check_out_dir, check_plot_path
    if getattr(args, "plot", None) is not None:
        args.plot = check_plot_path(args.plot)
    if getattr(args, "cmd", None) == "regen-reference":
        args.out = check_out_dir(args.out)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
