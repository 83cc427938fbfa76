"""Why a path given as an input cannot be read, in words a user can act on.

Takes a path; hands on None when it is a readable regular file, else the
reason: missing, a link to nothing, a link loop, a folder, a pipe, or the
operating system's own reason. Used for the workbook, a scenario file and
the workbook a scenario file names, so each is described the same way.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def unreadable_reason(path: Path) -> str | None:
    """Why ``path`` is not a file gpumix can read, or None when it is one."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            return f"is a link to {os.readlink(path)}, which does not exist"
        return "file not found"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a link that leads back to itself (a loop of links)"
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(info.st_mode):
        return "is a pipe (FIFO), not a file"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    return None
