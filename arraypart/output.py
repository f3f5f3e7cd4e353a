"""Writing an output folder safely: only arraypart's own files, whole or not at all.

The files arraypart writes into a folder are listed, with their SHA-256, in the
folder's :data:`MANIFEST`.  An existing folder is written into only when everything in
it is arraypart's (listed and unchanged since) or with ``force``; even then only the
files of the old manifest are replaced or removed, never another file, and the folder
itself (its mode, its owner, a mount point) is kept.

Every file is first written into a hidden staging folder (:data:`TEMP_MARK`) on the
same file system; the commit is a few renames with interruptions held back
(:func:`arraypart.interrupts.deferred`) and undone on an error, so SIGINT, SIGTERM or a
full disk leave the old output or the new one, and the staging folder is removed.
Under the command line's supervisor the folder is touched only once the supervisor
has promised not to kill the run (:func:`arraypart.supervisor.unkillable`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Callable, Iterator, Union

from . import interrupts, supervisor
from .errors import Coord, KernelError

MANIFEST = ".arraypart-manifest"
MANIFEST_HEADER = "# files written by arraypart (sha256, name); see arraypart compile --force\n"
#: The prefix of arraypart's staging folders (removed when a run ends in any way but
#: SIGKILL; a later run removes leftovers of a killed one).
TEMP_MARK = ".arraypart-tmp-"
#: A file's content: its bytes, or a function that writes them to a binary stream
#: (for contents too large to hold in memory next to others).
Content = Union[bytes, Callable[[BinaryIO], None]]
#: How many unknown files an error message names.
NAMED_FOREIGN = 3


def write_tree(files: dict[str, Content], outdir: str | os.PathLike, *,
               force: bool = False) -> Path:
    """Write ``files`` (relative POSIX name -> content) into ``outdir`` as described in
    the module doc; returns the folder's absolute path.  Raises :class:`KernelError`
    (located at ``outdir``) when the folder holds other files and ``force`` is off, or
    when it cannot be written."""
    shown = str(outdir)
    for name in files:
        _check_name(name, shown)
    target = Path(os.path.abspath(outdir))
    try:
        with supervisor.unkillable():
            _write_target(files, target, shown, force)
    except OSError as error:
        raise KernelError(Coord(shown), "cannot write the output here: "
                                        f"{error.strerror or error}") from None
    return target


def _write_target(files: dict[str, Content], target: Path, shown: str, force: bool) -> None:
    if target.is_dir():
        _write_into(files, target, shown, force)
    elif target.exists() or target.is_symlink():
        raise KernelError(Coord(shown), "the output path exists and is not a directory")
    else:
        _write_new(files, target)


def manifest_text(digests: dict[str, str]) -> str:
    """The manifest listing files by name -> SHA-256: one ``sha256  name`` line each."""
    lines = [f"{digest}  {name}\n" for name, digest in sorted(digests.items())]
    return MANIFEST_HEADER + "".join(lines)


def read_manifest(folder: Path) -> dict[str, str]:
    """Name -> SHA-256 of the files a folder's manifest lists ({} without one)."""
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    owned = {}
    for line in text.splitlines():
        digest, sep, name = line.partition("  ")
        if sep and not line.startswith("#") and _safe_name(name):
            owned[name] = digest
    return owned


def _check_name(name: str, shown: str) -> None:
    if not _safe_name(name):
        raise KernelError(Coord(shown), f"refusing to write {name!r} outside the output folder")


def _safe_name(name: str) -> bool:
    path = PurePosixPath(name)
    return (bool(name) and not path.is_absolute() and ".." not in path.parts
            and "\n" not in name and name != MANIFEST and not name.startswith(TEMP_MARK))


def _write_files(folder: Path, files: dict[str, Content]) -> None:
    digests = {}
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_file(path, data)
        digests[name] = _digest(path)
    _write_file(folder / MANIFEST, manifest_text(digests).encode("utf-8"))


def _write_file(path: Path, data: Content) -> None:
    with open(path, "xb") as stream:
        if callable(data):
            data(stream)
        else:
            stream.write(data)


def _new_dir(parent: Path, prefix: str) -> Path:
    """A new empty folder with the process's usual mode (umask applied), unlike
    ``tempfile.mkdtemp``'s 0700."""
    while True:
        path = parent / f"{prefix}{secrets.token_hex(6)}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue


def _remove(path: Path) -> None:
    with interrupts.deferred():
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def _staging(parent: Path) -> Iterator[Path]:
    """A new staging folder in ``parent`` for the block, removed when it ends in any
    way (what the block renamed away stays).  It is made with interruptions held back:
    one that arrived during the ``mkdir`` was raised when it returned, before the
    folder was in anyone's hands, and left it behind."""
    made: list[Path] = []
    try:
        with interrupts.deferred():
            made.append(_new_dir(parent, TEMP_MARK))
        yield made[0]
    finally:
        for path in made:
            _remove(path)


def _write_new(files: dict[str, Content], target: Path) -> None:
    """A folder that does not exist yet: staged beside it, then renamed into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with _staging(target.parent) as staging:
        _write_files(staging, files)
        with interrupts.deferred():
            os.rename(staging, target)  # fails, rather than merges, if target appeared


def _foreign(target: Path, owned: dict[str, str]) -> list[str]:
    """What in ``target`` arraypart did not write (or what changed since it did)."""
    found = []
    owned_dirs = {str(PurePosixPath(name).parent) for name in owned} - {"."}
    stack = [PurePosixPath()]
    while stack and len(found) < NAMED_FOREIGN:
        folder = stack.pop()
        with os.scandir(target / folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                name = str(folder / entry.name)
                if name == MANIFEST or (folder == PurePosixPath()
                                        and entry.name.startswith(TEMP_MARK)):
                    continue
                if name in owned_dirs and entry.is_dir(follow_symlinks=False):
                    stack.append(folder / entry.name)
                elif not (name in owned and entry.is_file(follow_symlinks=False)
                          and _digest(target / name) == owned[name]):
                    found.append(name)
    return found


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_into(files: dict[str, Content], target: Path, shown: str, force: bool) -> None:
    """An existing folder: staged inside it, then arraypart's files swapped in."""
    owned = read_manifest(target)
    if not force:
        foreign = _foreign(target, owned)
        if foreign:
            names = ", ".join(foreign[:NAMED_FOREIGN])
            raise KernelError(Coord(shown), (
                f"the output folder holds files arraypart did not write ({names}); "
                "choose another -o, or --force to replace only arraypart's own files"))
    clash = next((name for name in sorted(files) if name not in owned
                  and os.path.lexists(target / name)), None)
    if clash is not None:
        raise KernelError(Coord(shown), (
            f"the output folder holds {clash}, which arraypart did not write and never "
            "replaces (not even with --force); move it away or choose another -o"))
    for stale in target.glob(f"{TEMP_MARK}*"):
        _remove(stale)
    with _staging(target) as staging:
        _write_files(staging, files)
        with interrupts.deferred():
            _swap(target, staging, sorted(owned), sorted(files))


def _swap(target: Path, staging: Path, old: list[str], new: list[str]) -> None:
    """Move the old manifest's files into ``staging/old`` and the new files (then the
    new manifest) into ``target``; on an error put everything back."""
    backup = staging / "old"
    moves: list[tuple[Path, Path]] = []

    def move(source: Path, destination: Path) -> None:
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, destination)
        moves.append((source, destination))

    try:
        for name in [MANIFEST, *old]:
            if (target / name).is_file() or (target / name).is_symlink():
                move(target / name, backup / name)
        for name in [*new, MANIFEST]:
            move(staging / name, target / name)
    except BaseException:
        for source, destination in reversed(moves):
            os.replace(destination, source)
        raise
    for name in old:
        folder = (target / name).parent
        if folder != target and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # an empty maps/ that only arraypart's old files filled
