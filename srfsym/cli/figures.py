"""Figures of the command line, ready for a paper.

Shared conventions: the legend sits outside the data (right of, or below, the axes), symbols are
typeset (``$\\lambda\\to\\infty$``, never ``oo``), error bars say what they are ("mean +-
standard error over N seeds"), a short caption-like note explains a curve that crosses a line
for a stated reason, and the format follows the file extension (.png, .pdf or .svg; SVG text
stays editable text).  Not a subcommand module: the plotting parts of ``curve`` and
``spectrum`` call these helpers.
"""
from __future__ import annotations

import os
import sys
import textwrap

from ..core.files import atomic_write


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def sem_label(what: str, d: int, seeds: int, extra: str = "") -> str:
    """Label of simulation points with error bars."""
    seeds_text = f"{seeds} seed" + ("s" if seeds != 1 else "")
    return (f"{what} (d = {d}): mean $\\pm$ standard error over {seeds_text}"
            + (f"; {extra}" if extra else ""))


def legend_right(ax, **kw):
    """The legend to the right of the axes, outside the data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                     fontsize=8, frameon=False, **kw)


def legend_below(ax, ncol=1, **kw):
    """The legend under the axes (and their x label), outside the data."""
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=ncol, fontsize=7,
                     frameon=False, **kw)


def caption(fig, notes, width=95):
    """Caption-like notes under the figure (one paragraph each), followed by the warnings the
    library raised during the command (``srfsym.cli.common.all_warnings``): a figure carries
    the warnings of the results it shows."""
    from .common import all_warnings
    fig._srfsym_caption = True
    shown = {n.rstrip(".").lower() for n in notes}
    notes = list(notes) + [f"Warning: {w}." for w in all_warnings()
                           if w.rstrip(".").lower() not in shown]
    if not notes:
        return None
    text = "\n".join(textwrap.fill(n, width) for n in notes)
    return fig.text(0.01, -0.02, text, ha="left", va="top", fontsize=8)


def save(fig, path, dpi=150):
    """Save by extension; the bounding box includes the outside legend and the caption.  The
    file is written under a temporary name in the same folder and renamed at the end: ``path``
    is either the complete figure or untouched."""
    plt = pyplot()
    try:
        with plt.rc_context({"svg.fonttype": "none", "pdf.fonttype": 42}):
            atomic_write(path, lambda tmp: fig.savefig(
                tmp, dpi=dpi, bbox_inches="tight", format=os.path.splitext(path)[1][1:] or "png"))
    finally:
        plt.close(fig)


def draw(make_figure, path, what="figure"):
    """Draw ``make_figure()`` and save it to ``path``; a failure costs only the figure: it is
    reported on stderr (``srfsym: note: ...``, the results printed stay complete) and False
    is returned."""
    try:
        fig = make_figure()
        if not getattr(fig, "_srfsym_caption", False):
            caption(fig, [])            # the warnings of the command, at least
        save(fig, path)
        return True
    except Exception as exc:      # a figure never costs the result
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"srfsym: note: the {what} was not written to {path} ({message}); the results "
              "are complete", file=sys.stderr)
        pyplot().close("all")
        return False
