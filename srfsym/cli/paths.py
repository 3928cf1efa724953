"""Output paths checked before any work: a bad ``--plot`` or ``--out`` is reported at once,
with the name that will actually be written."""
from __future__ import annotations

import os
from pathlib import Path

from .common import CLIError

#: File types the figures can be written as (matplotlib back ends).
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def check_plot_path(path: str, flag: str = "--plot") -> str:
    """The file name a figure will be written to (``.png`` appended when there is no
    suffix), or :class:`CLIError` when it cannot be written.

    >>> check_plot_path("curve")
    'curve.png'
    >>> check_plot_path("")
    Traceback (most recent call last):
    ...
    srfsym.cli.common.CLIError: --plot needs a file name (e.g. --plot curve.png)
    """
    if not path or not path.strip():
        raise CLIError(f"{flag} needs a file name (e.g. {flag} curve.png)")
    p = Path(path)
    if p.is_dir():
        raise CLIError(f"{flag} {path} is a directory: the file name must end in "
                       f"{', '.join(PLOT_SUFFIXES)}, e.g. {p / 'curve.png'}")
    if p.exists() and not p.is_file():
        raise CLIError(f"{flag} {path} exists and is not a regular file")
    if p.suffix.lower() not in PLOT_SUFFIXES:
        if p.suffix:
            raise CLIError(f"{flag} {path}: the file name must end in .png, .pdf or .svg "
                           f"(unsupported file type {p.suffix!r}; the format follows the name)")
        p = p.with_name(p.name + ".png")
    if p.exists() and not p.is_file():
        raise CLIError(f"{flag} {p} exists and is not a regular file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise CLIError(f"{flag} {p}: folder {parent} does not exist (No such file or directory)")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise CLIError(f"{flag} {p}: no permission to write there")
    return str(p)


def check_out_dir(path: str, flag: str = "--out") -> str:
    """A folder that exists or can be created, for files written by ``regen-reference``."""
    if not path or not path.strip():
        raise CLIError(f"{flag} needs a folder name")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise CLIError(f"{flag} {path} exists and is not a folder")
    existing = p
    while not existing.exists():
        existing = existing.parent
    if not os.access(existing, os.W_OK):
        raise CLIError(f"{flag} {path}: no permission to write in {existing}")
    return str(p)
