"""``srfsym sweep``: a grid of theory points and simulations, resumable, local or on Dask."""
from __future__ import annotations

import sys

from .common import EXAMPLES, CLIError, Interrupted, out


def cmd_sweep(args):
    import os

    from ..sweep.run import SweepError, SweepInterrupted, load_spec, read_results, run_sweep
    if args.plot is not None:          # checked before the sweep, not after it
        folder = os.path.dirname(os.path.abspath(args.plot))
        if not args.plot.strip() or os.path.isdir(args.plot) or not os.path.isdir(folder):
            raise CLIError(f"cannot write --plot {args.plot!r}: give a file in an existing "
                           "folder")
    try:
        spec = load_spec(args.grid)
        if args.plot is not None:      # a figure that cannot be drawn is refused before work
            from ..sweep.plot import check_plottable
            check_plottable(spec)
        summary = run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                            progress=not args.quiet, timeout=args.timeout)
    except SweepInterrupted as exc:
        raise Interrupted(str(exc)) from None
    except SweepError as exc:
        raise CLIError(str(exc)) from None
    except PermissionError as exc:
        raise CLIError(f"cannot write --out {args.out}: {exc.strerror}") from None
    except FileNotFoundError as exc:
        raise CLIError(f"cannot write --out {args.out}: {exc.strerror}") from None
    print(summary, file=sys.stderr)
    out(f"results: {args.out}")
    if args.plot:                      # a figure that fails costs only the figure (exit 0)
        from ..sweep.plot import plot_sweep
        from .figures import draw
        if draw(lambda: plot_sweep(read_results(args.out)), args.plot):
            out(f"plot: {args.plot}")


def register(sub):
    import argparse

    from ..sweep.run import keys_help
    p = sub.add_parser(
        "sweep", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="keys (each a value or a list; the others are required):\n" + keys_help()
        + "\n\nexample:\n" + "\n".join("  " + line for line in EXAMPLES["sweep"].splitlines()),
        help="sweep a grid of theory points and simulations (TOML) into a CSV",
        description="Run the cartesian product of the parameters in GRID.toml ([theory] and/or "
                    "[simulation] tables with the keys of 'srfsym error' / 'srfsym simulate', "
                    "each a value or a list). Each finished point is appended to --out at "
                    "once; a rerun with the same --out computes only the missing points.")
    p.add_argument("grid", metavar="GRID.toml", help="the sweep description")
    p.add_argument("--out", required=True, metavar="RESULTS.csv",
                   help="results table (appended to, never truncated) (required)")
    p.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: the cores available)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run on a Dask distributed cluster, e.g. tcp://HOST:8786")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="seconds to reach the Dask scheduler, and to wait while it has no "
                        "worker left (default 10)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="figure of the results (heat map for two swept parameters, curves "
                        "for one, simulation means with standard errors beside the theory)")
    p.set_defaults(func=cmd_sweep)
