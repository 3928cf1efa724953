"""Shared pieces of the command line: output helpers, option groups, help formatting,
status lines, warnings, the CLI error."""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import logging
import sys
import time
import warnings

import mpmath
import numpy as np

DEFAULT = {"student": "tanh", "teacher": "sin", "eta": 3.0, "alpha0": 20.0, "lam": 0.1}


class CLIError(Exception):
    pass


class Interrupted(CLIError):
    """Ctrl-C, with what was kept: ``srfsym: <message>``, exit status 130 (no traceback)."""


def out(text=""):
    print(text)


def emit_json(obj):
    """Print ``obj`` as strict JSON: non-finite floats become the strings "inf", "-inf",
    "nan" (``json`` would write the invalid tokens Infinity / NaN)."""
    out(json.dumps(_finite(obj), indent=2, default=_json_default, allow_nan=False))


def _finite(o):
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    if isinstance(o, (float, np.floating)) and not np.isfinite(o):
        return str(float(o))
    return o


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, mpmath.mpf):
        return mpmath.nstr(o, mpmath.mp.dps)
    return str(o)


#: The leading columns of every table srfsym writes (JSON rows, CSV, the sweep's CSV), in this
#: order: what produced the row (``source``: theory, simulation, mapping, bounds), the inputs as
#: numbers, then the sRF parameters.  Tables of ``mapping``, ``error``, ``bounds``, ``curve``,
#: ``simulate``, ``spectrum`` and ``sweep`` therefore concatenate into one table (``csv``, or
#: ``pandas.concat`` where pandas is installed; srfsym does not need it).  The whole output is described by ``srfsym/cli/output_schema.json``.
INPUT_COLUMNS = ("source", "student", "teacher", "alpha0", "eta", "lam", "alpha", "beta")
SRF_COLUMNS = ("r", "c", "gamma")

#: identifier of the output schema (``"schema"`` of every ``--json`` output)
SCHEMA_ID = "srfsym-output/1"


def schema_path():
    """The JSON Schema of the ``--json`` output of every subcommand (package data).

    >>> import json; json.load(open(schema_path()))["properties"]["schema"]["const"]
    'srfsym-output/1'
    """
    from pathlib import Path
    return Path(__file__).with_name("output_schema.json")


def metadata(args) -> dict:
    """The one place for what produced an output: srfsym version, the command line, and the
    parsed parameters (every option, defaults included)."""
    import shlex

    from ..core.version import __version__
    skip = {"func", "argv", "json", "csv", "quiet", "cmd"}
    params = {k: v for k, v in sorted(vars(args).items()) if k not in skip}
    argv = getattr(args, "argv", None)
    return {"srfsym_version": __version__, "subcommand": args.cmd,
            "command": "srfsym" + ("" if argv is None else
                                   " " + " ".join(shlex.quote(a) for a in argv)),
            "parameters": params}


def all_warnings(warnings=()):
    """``warnings`` (the command's own, e.g. on the agreement with a simulation) followed by
    every warning the library raised during the command (:func:`warnings_once`: the
    isotropic-bulk check, a non-odd activation, a precision loss), each once."""
    return list(dict.fromkeys([*warnings, *_SHOWN]))


def emit_output(args, rows, notes=(), warnings=(), details=None):
    """Print ``rows`` in the shared schema: ``--json`` (the rows with metadata, notes and
    warnings, see :data:`SCHEMA_ID`), or ``--csv`` (the rows; a ``warnings`` column on every
    row when there are any).  The warnings are ``warnings`` and those the library raised
    (:func:`all_warnings`): a warning reaches every output a result goes to.  Returns False
    when neither was asked for (the caller prints text; the library's warnings are on
    stderr)."""
    warns = all_warnings(warnings)
    if getattr(args, "json", False):
        payload = {"schema": SCHEMA_ID, "meta": metadata(args), "rows": list(rows),
                   "notes": list(dict.fromkeys(notes)), "warnings": warns}
        if details:
            payload["details"] = details
        emit_json(payload)
        return True
    if getattr(args, "csv", False):       # high-precision decimals as <column>_decimal
        extra = {"warnings": " | ".join(warns)} if warns else {}
        emit_csv([{**{k: v for k, v in row.items() if k != "decimal"},
                   **{f"{k}_decimal": v for k, v in (row.get("decimal") or {}).items()},
                   **extra}
                  for row in rows])
        return True
    return False


def _number(v):
    """Inputs as numbers: ints and floats stay, numeric strings and SymPy numbers become float."""
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def table_row(source, student, teacher, **columns):
    """One row of the common output schema: :data:`INPUT_COLUMNS`, :data:`SRF_COLUMNS` (absent
    ones are ``None``, an empty CSV cell), then the other columns in the order given."""
    row = {"source": source, "student": str(student), "teacher": str(teacher)}
    for key in INPUT_COLUMNS[3:] + SRF_COLUMNS:
        row[key] = _number(columns.pop(key, None))
    row.update(columns)
    return row


#: leading columns of the rows of ``activation`` and ``coefficients`` (one activation, not a
#: student-teacher point)
ACTIVATION_COLUMNS = ("source", "activation", "kappa", "r", "c")


def activation_row(source, name, **columns):
    """One row of ``activation`` / ``coefficients``: :data:`ACTIVATION_COLUMNS` (absent ones
    ``None``), then the other columns in the order given.

    >>> activation_row("coefficients", "tanh", kappa="0.7", r="0.9", c="1", mu0=0.36)
    {'source': 'coefficients', 'activation': 'tanh', 'kappa': 0.7, 'r': 0.9, 'c': 1.0, 'mu0': 0.36}
    """
    row = {"source": source, "activation": str(name)}
    for key in ACTIVATION_COLUMNS[2:]:
        row[key] = _number(columns.pop(key, None))
    row.update(columns)
    return row


def emit_csv(rows):
    """CSV of the rows: the union of their columns, in order of first appearance; a list or
    dict column (a readout vocabulary, per-letter values) is kept as its JSON text, so that
    the CSV holds the same rows as ``--json``.

    >>> emit_csv([{"alpha": 1.0, "letters": [1.0, 2.0]}])
    alpha,letters
    1.0,"[1.0, 2.0]"
    """
    if not rows:
        return
    buf = io.StringIO()
    keys = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _cell(v) for k, v in r.items()})
    sys.stdout.write(buf.getvalue())


def _cell(v):
    """A CSV cell: lists and dicts as JSON text (strict: non-finite floats as strings)."""
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(_finite(v), default=_json_default, allow_nan=False)
    return v


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option states its default (or that it is required); epilogs keep their layout."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (not action.option_strings or action.default is argparse.SUPPRESS
                or "default" in text or "required" in text or "%(default)" in text):
            return text
        if action.required:
            return f"{text} (required)"
        if action.default is False:
            return f"{text} (default: off)"
        if action.default is None:
            return f"{text} (default: not set)"
        return f"{text} (default: %(default)s)"


#: one example per subcommand, shown at the end of ``srfsym COMMAND --help``
EXAMPLES = {
    "derive": "srfsym derive                       # the whole chain for tanh / sin\n"
              "srfsym derive --list                # the step-by-step scripts\n"
              "srfsym derive sherman_morrison      # run one of them",
    "activation": 'srfsym activation "x/(1+abs(x))"\n'
                  'srfsym --integrate-timeout 0 activation "tanh(x) + 0.1*x**3" --json',
    "coefficients": "srfsym coefficients tanh --r 0.9 --c 1 --kappa 0.7 --dps 30",
    "mapping": "srfsym mapping --student tanh --teacher sin --eta 3 --alpha0 20 --json",
    "error": "srfsym error --student tanh --teacher sin --alpha0 20 --eta 3 --lam 0.1 "
             "--alpha 0.5 1 2\n"
             "srfsym error --student tanh --teacher sin --alpha0 20 --eta 3 --alpha 1 4 "
             "--optimize-lambda --csv",
    "bounds": "srfsym bounds --student tanh --teacher sin --alpha0 2 --eta 3\n"
              "srfsym bounds --student tanh --teacher sin --r 1.134 --c 1.019 --vocabulary 1 2\n"
              "srfsym bounds --student sin --teacher sin --r 1 --c 1.2 --dps 30\n"
              "srfsym bounds --student tanh --teacher sin --alpha0 2 --optimize-eta --json",
    "curve": "srfsym curve --student tanh --teacher tanh --alpha0 0.5 --eta 1 --lam 0.01 "
             "--plot curve.pdf --simulate --d-sim 300 --seeds 2 --log-alpha",
    "spectrum": "srfsym spectrum --student tanh --teacher sin --alpha0 20 --eta 8 "
                "--z 0.6+0.1j 1+0.1j\n"
                "srfsym spectrum --student tanh --teacher sin --alpha0 20 --eta 8 --simulate "
                "--d 300 --seeds 2 --plot spec.svg",
    "scaling": "srfsym scaling --a 2 --r 0.75                      # exponent, regions, optimum\n"
               "srfsym scaling --a 1.5 --r 0.4 --n 1e3 1e4 --p 300 --lam 0.1 --noise 0.05\n"
               "srfsym scaling --student tanh --teacher sin --d 30 --n 900 --p 300 inf --lam 0.1",
    "simulate": "srfsym simulate --student tanh --teacher sin --alpha0 20 --eta 3 --lam 0.1 "
                "--alpha 1 --d 400 --seeds 2 --csv",
    "target": 'srfsym target "z1 + z1*z2" --student tanh --student relu\n'
              'srfsym target "tanh(z1 + z2/2) + sin(z2)/2" --order 4 --json',
    "regen-reference": "srfsym regen-reference --quick --out /tmp/reference",
    "reference": "srfsym reference cases.toml --dps 30 --out values.json",
    "cache": "srfsym cache            # the folder of the cached closed forms\n"
             "srfsym cache --clear    # remove them",
    "sweep": "srfsym sweep grid.toml --out results.csv --workers 2 --plot results.png\n"
             "srfsym sweep grid.toml --out results.csv --scheduler tcp://127.0.0.1:8786",
}


def finish_parsers(sub):
    """Give every subcommand parser the shared help formatter and its example epilog."""
    for name, parser in sub.choices.items():
        parser.formatter_class = HelpFormatter
        # ``srfsym COMMAND ... -q`` is the global ``srfsym -q COMMAND``: one option, two places
        parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                            help="same as srfsym -q: no progress bars or status lines "
                                 "(default: off)")
        if name in EXAMPLES and not parser.epilog:
            parser.epilog = "example:\n" + "\n".join(
                "  " + line for line in EXAMPLES[name].splitlines())


# ---------------------------------------------------------------------------------------
# status lines (stderr) and warnings

LOG = logging.getLogger("srfsym")


def configure_feedback(quiet: bool):
    """Status lines of the library (logger ``srfsym``, INFO) go to stderr unless ``quiet``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("srfsym: %(message)s"))
    for old in [h for h in LOG.handlers if getattr(h, "_srfsym_cli", False)]:
        LOG.removeHandler(old)
    handler._srfsym_cli = True
    LOG.addHandler(handler)
    LOG.setLevel(logging.WARNING if quiet else logging.INFO)
    LOG.propagate = False
    return handler


#: seconds between the "still running" lines of a long step
HEARTBEAT = 5.0


@contextlib.contextmanager
def status(message: str, every: float | None = None):
    """Say on stderr what is being computed; while it runs, after ``every`` seconds (default
    :data:`HEARTBEAT`) and then at doubling intervals (at most a minute), that it still runs
    and for how long; if it took more than 2 s, how long it took."""
    import threading
    LOG.info(f"{message} ...")
    t0 = time.perf_counter()
    done = threading.Event()
    every = HEARTBEAT if every is None else every

    short = message.split(" (")[0]

    def beat():
        wait = every
        while not done.wait(wait):          # 5, 10, 20, 40, 60, 60 ... s apart
            LOG.info(f"{short}: still running, {time.perf_counter() - t0:.0f} s so far")
            wait = min(2 * wait, 60.0)
    ticker = None
    if LOG.isEnabledFor(logging.INFO):
        ticker = threading.Thread(target=beat, daemon=True, name="srfsym-status")
        ticker.start()
    try:
        yield
    finally:
        done.set()
        if ticker is not None:
            ticker.join()
    dt = time.perf_counter() - t0
    if dt > 2:
        LOG.info(f"{message}: done in {dt:.1f} s")


def non_negative_int(text):
    """argparse type of seeds: an integer >= 0 (argparse names the option in the message).

    >>> non_negative_int("3")
    3
    """
    import argparse
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") \
            from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value



def positive_int(text):
    """argparse type of ``--steps``: an integer >= 1.

    >>> positive_int("2")
    2
    """
    value = non_negative_int(text)
    if value < 1:
        import argparse
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value

#: the warnings shown during the current command, in order (:func:`warnings_once`); the
#: outputs (JSON, CSV, figure captions) carry them
_SHOWN: list = []


@contextlib.contextmanager
def warnings_once():
    """Show each distinct warning once, as ``srfsym: warning: ...`` (no source paths), and
    record it for the outputs (:func:`all_warnings`)."""
    seen = set()
    _SHOWN.clear()

    def show(message, category, filename, lineno, file=None, line=None):
        key = (category, str(message))
        if key not in seen:
            seen.add(key)
            _SHOWN.append(" ".join(str(message).split()))
            print(f"srfsym: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        for quiet in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
            warnings.filterwarnings("ignore", category=quiet)   # the interpreter's, not ours
        # numpy's floating-point notes on intermediate values ("overflow encountered in ..."):
        # not a cause a user can act on; a result they spoil is refused or flagged by its check
        warnings.filterwarnings("ignore", category=RuntimeWarning,
                                message=r".*encountered in ")
        warnings.showwarning = show
        yield


def step(n, title):
    out("")
    out(f"Step {n}. {title}")
    out("-" * (len(title) + 9))



def add_physics(p, need_lam=True, alpha_nargs="+", several=False):
    """The physics options; ``several``: ``--alpha0`` and ``--eta`` take lists (one curve
    per value, ``curve``)."""
    more = {"nargs": "+"} if several else {}
    each = " (several: one curve per value)" if several else ""
    p.add_argument("--student", required=True, help="student activation (name or expression in x)")
    p.add_argument("--teacher", required=True,
                   help="teacher activation (name or expression in x), or a multi-index "
                        "target in z1..z4, e.g. 'z1 + z1*z2' (docs/theory.md (n))")
    p.add_argument("--alpha0", type=float, required=True, **more,
                   help="step samples per dimension n0/d" + each)
    p.add_argument("--eta", type=float, required=True, **more,
                   help="learning rate eta-tilde" + each)
    if need_lam:
        p.add_argument("--lam", type=float, required=True, help="ridge penalty lambda (sum loss)")
    if alpha_nargs:
        p.add_argument("--alpha", type=float, nargs=alpha_nargs,
                       help="readout samples per dimension n/d (one or more; required)"
                       if alpha_nargs == "+" else "readout samples per dimension n/d (default: "
                       "--points values from --alpha-min to --alpha-max)")
    p.add_argument("--beta", type=float, default=1.0, help="width ratio p/d (default 1)")
    add_vocabulary(p)


def add_spectrum(p):
    p.add_argument("--spectrum", choices=["mp", "sample"], default="mp",
                   help="deterministic Marchenko-Pastur (default) or a finite-d sample")
    p.add_argument("--d", type=int, help="dimension of the sampled spectrum (needed with "
                   "--spectrum sample)")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="random seed of the sampled spectrum")


def add_bulk(p, several=False):
    """``--bulk isotropic|step|exact``: the bulk of the trained first layer (docs/theory.md (g),
    (g.4), (g.5)); ``several``: a list of them (one curve each, ``curve``)."""
    p.add_argument("--bulk", choices=["isotropic", "step", "exact"], default="isotropic",
                   **({"nargs": "+"} if several else {}),
                   help=("several: one curve each; " if several else "") + "bulk of the trained first layer: 'isotropic' (c MP_beta, the papers' "
                   "model; default), 'step' (the first layer realised at dimension --d, seed "
                   "--seed: the network of 'srfsym simulate --seed S --seeds 1') or 'exact' "
                   "(its d -> infinity law, docs/theory.md (g.5))")


def warn_if_isotropic_is_off(args):
    """With the isotropic bulk, warn when the step's own bulk departs from it (docs/theory.md (g.4))."""
    if getattr(args, "bulk", "isotropic") != "isotropic" or not args.alpha0 or not args.eta:
        return
    if getattr(args, "steps", 1) > 1:      # the realised one-step bulk: not the T-step map's
        return
    from ..theory.fixed_point import multi_index_teacher
    if multi_index_teacher(args.teacher):     # multi-index hook (issue 28): no step-bulk check
        return
    voc = vocabulary_arg(args) if hasattr(args, "vocabulary") else None
    if voc is not None and len({abs(w) for w in voc.letters}) > 1:  # letter j: the step at |w_j| eta
        from ..theory.spectral.exact_bulk_groups import vocabulary_bulk_warning
        vocabulary_bulk_warning(args.student, args.teacher, args.alpha0, args.eta, args.beta,
                                voc, advice=bulk_advice(args))
        return
    from ..theory.spectral.step_bulk import isotropic_bulk_warning
    with status("checking the isotropic bulk against a realised step (docs/theory.md (g.4))"):
        isotropic_bulk_warning(args.student, args.teacher, args.alpha0, args.eta, args.beta,
                               advice=bulk_advice(args))


def bulk_advice(args) -> str:
    """What the isotropic-bulk warning recommends on this command line: ``--bulk exact``
    (the d -> infinity law of the step's bulk) with the options it does not take named for
    removal (``--dps``: double precision only; ``--spectrum sample`` and, on ``error`` and
    ``curve``, ``--d``: it is its own spectrum), so that the command it suggests runs.

    >>> import argparse
    >>> bulk_advice(argparse.Namespace(cmd="error", dps=30, spectrum="mp", d=None))
    'use --bulk exact without --dps (it is solved in double precision only; docs/theory.md (g.5))'
    >>> print(bulk_advice(argparse.Namespace(cmd="spectrum", dps=None, spectrum="mp", d=1000)))
    use --bulk exact (the d -> infinity law of the step's bulk, docs/theory.md (g.5))
    """
    drop = []
    if getattr(args, "dps", None):
        drop.append(("--dps", "it is solved in double precision only"))
    if getattr(args, "spectrum", "mp") == "sample":
        drop.append(("--spectrum sample", "it is its own spectrum"))
    if getattr(args, "cmd", None) in ("error", "curve") and getattr(args, "d", None) is not None:
        drop.append((f"--d {args.d}", "it is the d -> infinity law; --bulk step realises the "
                                      "layer at d"))
    if not drop:
        return "use --bulk exact (the d -> infinity law of the step's bulk, docs/theory.md (g.5))"
    return (f"use --bulk exact without {' and '.join(o for o, _ in drop)} ("
            + "; ".join(why for _, why in drop) + "; docs/theory.md (g.5))")


SHARED_HELP = ("train one first layer and re-draw only the readout/test data per seed (the "
                "reference notebook's protocol; error bars then omit the first layer's "
                "fluctuations)")


def add_output(p):
    """``--json`` or ``--csv`` (one of them) for commands that print tables."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="machine-readable output")
    g.add_argument("--csv", action="store_true", help="one CSV row per point")



def add_steps(p):
    """``--steps T``: giant steps on fresh batches (docs/theory.md (p); default 1)."""
    p.add_argument("--steps", type=positive_int, default=1,
                   help="giant steps T, each on a fresh batch of n0 = alpha0 d samples with the "
                        "full residual (docs/theory.md (p)); T > 1: the T-step map and the "
                        "vector-kappa readout theory (p.4), for a single-index teacher or a "
                        "multi-index target in z1..z4, e.g. 'z1 + z1*z2'; default 1")


def add_vocabulary(p):
    """``--vocabulary OMEGA ... [--weights PI ...]``: a readout vocabulary (docs/theory.md (k))."""
    p.add_argument("--vocabulary", type=float, nargs="+", metavar="OMEGA", default=None,
                   help="readout letters omega_j before the step (a0_k = omega_k / sqrt(p)); "
                        "default: the uniform readout {1}")
    p.add_argument("--weights", type=float, nargs="+", metavar="PI", default=None,
                   help="weights pi_j of the letters (positive, summing to 1; not normalised "
                        "for you); default: equal")


def vocabulary_arg(args):
    """The checked vocabulary of ``--vocabulary/--weights`` (``None``: uniform)."""
    letters, weights = getattr(args, "vocabulary", None), getattr(args, "weights", None)
    if letters is None:
        if weights is not None:
            raise CLIError("--weights needs --vocabulary (the letters they weigh)")
        return None
    from ..step.vocabulary import vocabulary
    try:
        return vocabulary(letters, weights)
    except ValueError as exc:
        raise CLIError(f"--vocabulary: {exc}") from None
