"""Output files that are complete or absent: written under a temporary name in the same
folder and renamed at the end (:func:`os.replace` is atomic on one file system)."""
from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["atomic_write"]


def atomic_write(path, write):
    """Call ``write(tmp)`` on a temporary file next to ``path`` and rename it to ``path`` at the
    end (:func:`os.replace`); on any failure the temporary file is removed and ``path`` is
    left as it was (never empty, never partial).

    >>> import tempfile; p = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> atomic_write(p, lambda tmp: open(tmp, "w").write("done"))
    >>> open(p).read()
    'done'
    """
    folder = os.path.dirname(os.path.abspath(path))
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".part",
                               dir=folder)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)          # mkstemp made it private
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
