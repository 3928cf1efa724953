"""The results file of a sweep: its columns, reading it back, and appending to it safely.

One writer at a time (an exclusive ``flock`` on the CSV itself, held for the whole sweep: a
second sweep on the same file is refused), a torn last record (an interrupted write) repaired
before anything is appended, and every task's rows written in one ``write`` and ``fsync``-ed.
"""
from __future__ import annotations

import csv
import io
import os
import stat

from .spec import SweepError

__all__ = ["COLUMNS", "KEY_COLUMNS", "LABEL_RULE_COLUMNS", "read_results", "row_key",
           "table_columns"]

#: the columns of the results table, in order: the leading columns are those of every srfsym
#: table (``srfsym.cli.common.INPUT_COLUMNS + SRF_COLUMNS``: ``source``, the inputs, r, c, gamma)
COLUMNS = ("source", "student", "teacher", "alpha0", "eta", "lam", "alpha", "beta", "r", "c",
           "gamma", "vocabulary", "spectrum", "d", "model", "n_test", "shared_first_layer", "seed",
           "loss", "noise", "bias",
           "test_error", "train_error", "classification_error", "train_loss", "residual",
           "method", "seconds", "note", "grid_id")
#: the columns added with the readout loss (a table without them is from an earlier srfsym)
LOSS_COLUMNS = ("loss", "noise", "bias", "classification_error", "train_loss")
#: the columns that identify a row (a point, and a seed for simulations; r, c, gamma are
#: computed from them)
KEY_COLUMNS = tuple(c for c in COLUMNS[:COLUMNS.index("test_error")] if c not in ("r", "c",
                                                                                  "gamma"))
#: the columns of a sweep that sets ``label_rule`` (docs/theory.md (m.6)): ``label_rule`` after
#: ``bias``; a sweep that leaves it at its default ("teacher") has :data:`COLUMNS`
LABEL_RULE_COLUMNS = (COLUMNS[:COLUMNS.index("bias") + 1] + ("label_rule",)
                      + COLUMNS[COLUMNS.index("bias") + 1:])


def table_columns(label_rule: bool = False, steps: bool = False) -> tuple:
    """The columns of a sweep's table: :data:`COLUMNS`, with ``label_rule`` after ``bias`` for a
    sweep that sets it, and ``steps`` (giant steps T, docs/theory.md (p)) after ``seed`` for a
    sweep that takes more than one step somewhere.

    >>> table_columns(steps=True)[COLUMNS.index("seed") + 1]
    'steps'
    """
    cols = LABEL_RULE_COLUMNS if label_rule else COLUMNS
    if steps:
        at = cols.index("seed") + 1
        cols = cols[:at] + ("steps",) + cols[at:]
    return cols


_LAYOUTS = tuple(table_columns(lr, st) for lr in (False, True) for st in (False, True))


def row_key(row) -> tuple:
    """The identity of a row: its :data:`KEY_COLUMNS`, its label rule (``"teacher"`` in a
    table without the column) and its steps (``"1"`` in a table without the column)."""
    return tuple(row[k] for k in KEY_COLUMNS) + (row.get("label_rule") or "teacher",
                                                 row.get("steps") or "1")


def read_results(path) -> list:
    """The rows of a results CSV (dicts of text); a row cut short by an interrupted write
    (too few fields, or its grid id cut: the start of another row's) is skipped, and a point
    found twice is returned once."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None:
            return []
        if reader.fieldnames and reader.fieldnames[0] == "kind":
            raise SweepError(f"{path} was written by an earlier srfsym (column 'kind', now "
                             "'source', with r, c, gamma added): use a new --out")
        _earlier_layout(path, reader.fieldnames)
        if tuple(reader.fieldnames) not in _LAYOUTS:
            raise SweepError(f"{path} is not an srfsym sweep table (its columns are "
                             f"{', '.join(reader.fieldnames[:6])}...)")
        rows = [r for r in reader if None not in r and None not in r.values()]
    ids = {r["grid_id"] for r in rows}
    cut = {g for g in ids if any(h != g and h.startswith(g) for h in ids)}
    # a point written twice (two sweeps on one file before writers were locked out): the
    # first copy (every task is deterministic, the copies agree)
    seen, out = set(), []
    for r in rows:
        key = row_key(r)
        if r["grid_id"] not in cut and key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _lines(text):
    """``text`` cut after every ``\\n`` only (``str.splitlines`` also cuts at ``\\r`` and
    friends, which a quoted note may hold)."""
    pieces = text.split("\n")
    return [p + "\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def _scan(text, ncols=len(COLUMNS)):
    """The records of a results file of ``ncols`` columns: a list of ``(first_line,
    line_count, fields, ok)`` and the torn tail, ``None`` or ``(first_line, char_offset)`` of a
    last record that an interrupted write cut (no final newline, a quoted field left open, or
    too few fields)."""
    lines = _lines(text)
    consumed = 0

    def feed():
        nonlocal consumed
        for line in lines:
            consumed += 1
            yield line
    records, start, offset = [], 0, 0
    reader = csv.reader(feed(), strict=True)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return records, None
        except csv.Error:           # a quoted field still open at the end of the file
            return records, (start + 1, offset)
        ended = lines[consumed - 1].endswith("\n")
        if consumed == len(lines) and (not ended or len(fields) != ncols):
            return records, (start + 1, offset)
        records.append((start + 1, consumed - start, fields, len(fields) == ncols))
        offset += sum(len(x) for x in lines[start:consumed])
        start = consumed


def _lock(fh, path):
    """An exclusive lock on the open results file for as long as it stays open: a second
    sweep on the same file is refused, not interleaved with this one."""
    try:
        import fcntl
    except ImportError:              # pragma: no cover (not POSIX): no lock
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise SweepError(f"another sweep is writing {path} now (it holds the file's lock): "
                         "wait for it to finish, or use another --out") from None
    except OSError:                  # a file system without locks (/dev/null, some NFS)
        pass


def _earlier_layout(path, header):
    """Name a table written before the loss columns (it cannot be extended)."""
    if tuple(header) == tuple(c for c in COLUMNS if c not in LOSS_COLUMNS):
        raise SweepError(f"{path} was written by an earlier srfsym (without the columns "
                         f"{', '.join(LOSS_COLUMNS)}): use a new --out")


def _repair(fh, path, text, gid, columns=COLUMNS):
    """Remove a torn last record (its points are computed again) and return the records,
    the rows already computed and what was repaired (messages)."""
    records, torn = _scan(text, len(columns))
    header = ",".join(columns)
    if records and tuple(records[0][2][:1]) == ("kind",):
        raise SweepError(f"{path} was written by an earlier srfsym (column 'kind', now "
                         "'source', with r, c, gamma added): use a new --out")
    if records:
        _earlier_layout(path, records[0][2])
    if records and tuple(records[0][2]) in _LAYOUTS and tuple(records[0][2]) != columns:
        raise SweepError(f"{path} holds results of a different grid (its table "
                         + ("has" if "label_rule" in records[0][2] else "has no")
                         + " label_rule column, this sweep's "
                         + ("has" if "label_rule" in columns else "has no")
                         + "); use another --out or the sweep file that produced it")
    if records and tuple(records[0][2]) != columns:
        raise SweepError(f"{path} is not an srfsym sweep table (its columns are "
                         f"{', '.join(records[0][2][:6])}...)")
    notes = []
    if torn is not None:
        line, offset = torn
        tail = text[offset:]
        if line == 1 and not header.startswith(tail.rstrip("\n")):
            raise SweepError(f"{path} is not an srfsym sweep table (it starts with "
                             f"{tail[:40]!r})")
        if line > 1:
            notes.append(f"line {line} of {path} was cut by an interrupted write "
                         f"({len(tail.encode())} bytes: {tail[:40]!r}"
                         f"{'...' if len(tail) > 40 else ''}): removed, its points are "
                         "computed again")
        fh.truncate(len(text[:offset].encode()))
    rows = []
    for line, _, fields, ok in records[1:]:
        if not ok:                   # not written by a sweep: the user decides, not the sweep
            text_line = ",".join(fields)
            raise SweepError(f"line {line} of {path} is not a row of this table ({len(fields)} "
                             f"fields, the table has {len(columns)}: "
                             f"{text_line[:60]!r}{'...' if len(text_line) > 60 else ''}): "
                             "remove that line (the rows around it are kept) or use a new "
                             "--out, then rerun")
        row = dict(zip(columns, fields))
        if row["grid_id"] != gid and gid.startswith(row["grid_id"]):
            notes.append(f"line {line} of {path} was cut inside its grid id (an interrupted "
                         "write): skipped, its point is computed again")
            continue
        rows.append(row)
    return rows, notes


def _open_results(path, gid, columns=COLUMNS):
    """Open ``path`` for appending under an exclusive lock, repair a torn last record, refuse
    a different grid, write the header (``columns``) of a new file.  Returns the open (binary)
    file, the keys already computed (:func:`row_key`) and the repairs made (messages).  Never
    removes a complete row."""
    if os.path.isdir(path):
        raise SweepError(f"--out {path} is a directory")
    fh = open(path, "a+b")                  # OSError (unwritable) reaches the caller
    try:
        _lock(fh, path)
        fh.seek(0)
        try:
            text = fh.read().decode()
        except UnicodeDecodeError:
            raise SweepError(f"{path} is not an srfsym sweep table") from None
        rows, notes = _repair(fh, path, text, gid, columns)
        other = {r["grid_id"] for r in rows} - {gid}
        if other:
            raise SweepError(f"{path} holds results of a different grid (grid id "
                             f"{sorted(other)[0]}, this sweep {gid}); use another --out or "
                             "the sweep file that produced it")
        done = {row_key(r) for r in rows}
        fh.seek(0, os.SEEK_END)
        if fh.tell() == 0:
            fh.write((",".join(columns) + "\n").encode())
        fh.flush()
    except BaseException:
        fh.close()
        raise
    return fh, done, notes


def _append(fh, rows, gid, columns=COLUMNS):
    """Append one task's rows in one write (the ``columns`` of the table: the rows' label rule
    is left out of a table without its column), then flush them to the disk."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    for r in rows:
        w.writerow({**r, "grid_id": gid})
    fh.write(buf.getvalue().encode())       # one write per task
    fh.flush()
    if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):    # not /dev/null, a pipe, ...
        os.fsync(fh.fileno())
