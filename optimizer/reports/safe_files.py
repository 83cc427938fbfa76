"""Writing result files so that nothing the user had is lost or replaced by accident.

Takes an output path and a writer (a function that writes a workbook to a
path); hands back nothing, or raises. Every workbook gpumix writes goes to a
temporary file in the target's own folder, is flushed to disk and then
renamed over the target in one step, so an interrupted or failed write
leaves the previous file as it was. A replaced file keeps its mode (and its
owner where the operating system allows). The checks made before any solve
(:func:`output_problems`) refuse a target that is a link, or that is the
same file as an input under another name (a hard link): compared by device
and inode, not by path; and (:func:`write_problems`) one that cannot be
written now: open in an office program, read-only, another user's, or in a
folder that takes no new file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType


def output_problems(path: Path, inputs: Sequence[Path] = ()) -> list[str]:
    """What makes ``path`` unfit to take a new workbook (empty when it is fit)."""
    if path.is_symlink():
        return [f"the output is a link (to {os.readlink(path)}); give the file itself"]
    if path.exists() and not path.is_file():
        return ["the output exists and is not a regular file"]
    if path.exists():
        for given in inputs:
            with contextlib.suppress(OSError):
                if os.path.samefile(path, given):
                    return [f"the output is the same file as the input {given}"]
    return write_problems(path)


# The lock files an office program keeps beside a workbook it has open.
LOCK_FILES = ((".~lock.{}#", "LibreOffice"), ("~${}", "Excel"))


def write_problems(path: Path) -> list[str]:
    """Why ``path`` cannot take a new workbook now (empty when it can), found before any
    solving (issue 35: a result file open in Excel was reported after a long solve).

    The file is refused when it is open in an office program (its lock file is beside
    it), when its mode bits let this user not write it (as a text editor refuses a
    read-only file, even to root: issue 33, ``--in-place`` replaced a 0444 workbook), or
    when it belongs to another user (replacing it would hand it to this one); its folder
    when no file can be made there.
    """
    problems = [
        f"the file is open in {program} ({lock.name} is beside it); close it and run again"
        for pattern, program in LOCK_FILES
        if _exists(lock := path.with_name(pattern.format(path.name)))
    ]
    with contextlib.suppress(FileNotFoundError):
        info = path.stat()
        if not _mode_lets_write(info):
            problems.append(
                f"the file is read-only (mode {stat.filemode(info.st_mode)}); make it writable "
                "or write the results elsewhere"
            )
        elif _others(info):
            problems.append(
                "the file belongs to another user: replacing it would make it yours; write "
                "the results elsewhere"
            )
    try:
        handle, probe = tempfile.mkstemp(dir=path.parent, prefix=".gpumix-", suffix=".probe")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        problems.append(f"no file can be made in the folder {path.parent}: {exc.strerror}")
    return problems


def _exists(lock: Path) -> bool:
    """``lock`` exists; a lock name too long for the folder cannot (the output's own
    name may already be as long as allowed)."""
    try:
        return lock.exists()
    except OSError:
        return False


def _mode_lets_write(info: os.stat_result) -> bool:
    """The write bit that applies to this user (owner, group or others) is set; for
    root, any write bit (root may write a file its owner may, but not a read-only one)."""
    mode = info.st_mode
    if not hasattr(os, "geteuid"):  # Windows: only the read-only attribute
        return bool(mode & stat.S_IWRITE)
    user = os.geteuid()
    if user == info.st_uid:
        return bool(mode & stat.S_IWUSR)
    if user == 0:
        return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    if info.st_gid == os.getegid() or info.st_gid in os.getgroups():
        return bool(mode & stat.S_IWGRP)
    return bool(mode & stat.S_IWOTH)


def _others(info: os.stat_result) -> bool:
    """The file belongs to another user, and this one (not root) cannot give it back."""
    if not hasattr(os, "geteuid"):
        return False
    user = os.geteuid()
    return user != 0 and user != info.st_uid


def write_atomically(path: Path, writer: Callable[[Path], None]) -> None:
    """Run ``writer`` on a temporary file beside ``path``, then rename it over ``path``.

    The temporary file is removed whatever goes wrong; ``path`` is only ever
    the old file or the complete new one.
    """
    folder = path.parent
    with _terminated_as_exit():
        # A short name of its own: the target's name may already be as long as allowed.
        handle, name = tempfile.mkstemp(dir=folder, prefix=".gpumix-", suffix=".xlsx.part")
        os.close(handle)
        temporary = Path(name)
        try:
            writer(temporary)
            with open(temporary, "rb+") as written:
                os.fsync(written.fileno())
            _keep_mode_and_owner(path, temporary)
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


@contextlib.contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """While writing, SIGTERM raises ``SystemExit(143)`` instead of ending the process
    at once, so that the temporary file is removed (issue 33: ``kill`` during a write
    left hidden ``.gpumix-*.xlsx.part`` files beside the output; SIGINT never did,
    being an exception already). A handler someone else set is called instead; an
    ignored SIGTERM stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; its own handler stands
        return
    before = signal.getsignal(signal.SIGTERM)
    if before is None:  # set outside Python: it cannot be restored, so leave it be
        yield
        return

    def terminated(signum: int, frame: FrameType | None) -> None:
        if callable(before):
            before(signum, frame)
        else:
            raise SystemExit(128 + signum)

    if before is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        if before is not signal.SIG_IGN:
            signal.signal(signal.SIGTERM, before)


def _keep_mode_and_owner(old: Path, new: Path) -> None:
    """Give ``new`` the mode and, where permitted, the owner of ``old`` (if it exists)."""
    try:
        info = old.stat()
    except FileNotFoundError:
        # A new file gets the mode any new file gets here (mkstemp made it 0600).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(new, 0o666 & ~umask)
        return
    os.chmod(new, stat.S_IMODE(info.st_mode))
    with contextlib.suppress(PermissionError, AttributeError):
        os.chown(new, info.st_uid, info.st_gid)
