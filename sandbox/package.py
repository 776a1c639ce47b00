"""Bot packages: one source file, or a ``.zip`` (or a directory) with ``bot.toml``/``bot.json``.

Loading a bot *stages* it: its files are copied into a fresh directory that the unprivileged
sandbox uid can read (and nothing else can list), which the sandbox then binds read-only at
``/bot``. Unpacking treats the archive as hostile: every refusal raises :class:`BotPackageError`
with a message meant for the bot's author.

Manifest (``bot.toml``; ``bot.json`` takes the same keys)::

    name = "greedy"          # optional, defaults to the file name
    runtime = "python3"      # python3 | node | native | cpp
    entry = "main.py"        # optional, defaults to the runtime's bot.py / bot.js / bot / bot.cpp
    pythonpath = ["vendor"]  # python3: package folders put on sys.path (vendored dependencies)
    sources = ["search.cpp"] # cpp: more translation units compiled with the entry
"""

from __future__ import annotations

import errno
import functools
import json
import os
import shutil
import stat
import tempfile
import tomllib
import weakref
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from . import protocol
from .elf import NotElf, elf_interpreter
from .runtimes import RUNTIMES, SUFFIX_RUNTIMES

MANIFESTS = ("bot.toml", "bot.json")
MANIFEST_KEYS = {"name", "runtime", "entry", "description", "pythonpath", "sources"}
LIST_KEYS = {"pythonpath", "sources"}  # a string or a list of strings; the rest are strings
CPP_SUFFIXES = (".cpp", ".cc", ".cxx")
MAX_NAME_CHARS = 100  # the name is shown in tables, results and replays


class BotPackageError(ValueError):
    """The bot cannot be loaded; the message says why, for the bot's author."""


@dataclass(frozen=True, kw_only=True)
class PackageCaps:
    max_archive_bytes: int = 8 * 1024 * 1024  # the upload itself (compressed)
    max_unpacked_bytes: int = 32 * 1024 * 1024
    max_files: int = 256
    max_path_chars: int = 200


@dataclass(eq=False)
class BotPackage:
    """A staged bot: ``root`` holds its files, ``entry`` (relative) is what the runtime runs."""

    name: str
    runtime: str
    entry: str
    root: Path
    source: Path
    #: python3: package folders on ``sys.path`` before the standard library
    pythonpath: tuple[str, ...] = ()
    #: cpp: the translation units compiled (the entry first)
    sources: tuple[str, ...] = ()
    _finalizer: Any = field(default=None, repr=False)

    def close(self) -> None:
        """Delete the staged copy (also happens when the object is garbage collected)."""
        if self._finalizer is not None:
            self._finalizer()

    def __enter__(self) -> BotPackage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def staging_base() -> Path:
    """Parent of all staged bots: traversable by the sandbox uid but not listable (0711).

    Staged directories are named after the process that made them; the first call in a process
    removes those whose process is gone (a worker that was killed cannot clean up after itself).
    """
    base = Path(
        os.environ.get("ARENA_SANDBOX_STAGING")
        or Path(tempfile.gettempdir()) / f"arena-sandbox-{os.geteuid()}"
    )
    base.mkdir(mode=0o711, parents=True, exist_ok=True)
    info = base.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise RuntimeError(f"staging directory {base} is not a directory owned by us")
    os.chmod(base, 0o711)
    _sweep(base)
    return base


@functools.cache
def _sweep(base: Path) -> None:
    for stale in base.glob("bot-*-*"):
        pid = stale.name.split("-")[1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def load_bot(path: str | os.PathLike[str], *, caps: PackageCaps | None = None) -> BotPackage:
    """Stage the bot at ``path``: a ``.py``/``.js``/static executable, a ``.zip`` or a directory."""
    caps = caps or PackageCaps()
    source = Path(path)
    if not source.exists():
        raise BotPackageError(f"{source}: no such file or directory")
    top = root = Path(tempfile.mkdtemp(prefix=f"bot-{os.getpid()}-", dir=staging_base()))
    os.chmod(top, 0o755)
    try:
        if source.is_dir():
            _copy_tree(source, root, caps)
            manifest = _read_manifest(root)
        elif zipfile.is_zipfile(source):
            try:
                _unpack_zip(source, root, caps)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
                    UnicodeDecodeError, OSError) as err:  # fmt: skip
                # EINVAL: a damaged directory put a member's offset before the file's start;
                # any other OSError is the disk's or the system's, not the archive's
                if isinstance(err, OSError) and err.errno != errno.EINVAL:
                    raise
                raise BotPackageError(f"the archive is damaged or unsupported: {err}") from None
            root_with_manifest = _manifest_root(root)
            manifest = _read_manifest(root_with_manifest)
            if root_with_manifest != root:  # the zip wrapped everything in one folder
                root = root_with_manifest
        elif source.suffix.lower() == ".zip":
            raise BotPackageError(f"{source.name}: not a zip archive (is the file complete?)")
        else:
            manifest = _single_file(source, root, caps)
        package = _package(manifest, root, source)
    except BaseException:
        shutil.rmtree(top, ignore_errors=True)
        raise
    package._finalizer = weakref.finalize(package, shutil.rmtree, top, ignore_errors=True)
    return package


def single_file_suffixes() -> str:
    """The suffixes a bot given as one source file may have (".cc, .cpp, ... or .py"), from the
    table that decides its runtime: the upload page and this module's refusals both say it."""
    suffixes = sorted(SUFFIX_RUNTIMES)
    return ", ".join(suffixes[:-1]) + " or " + suffixes[-1]


def _single_file(source: Path, root: Path, caps: PackageCaps) -> dict[str, Any]:
    size = source.stat().st_size
    if size > caps.max_unpacked_bytes:
        raise BotPackageError(f"{source.name}: {size} bytes, more than {caps.max_unpacked_bytes}")
    with open(source, "rb") as f:
        head = f.read(4)
    runtime = SUFFIX_RUNTIMES.get(source.suffix.lower())
    if runtime is None and head == b"\x7fELF":
        runtime = "native"
    if runtime is None:
        raise BotPackageError(
            f"{source.name}: cannot tell the runtime (use a {single_file_suffixes()} file, "
            "a static executable, or a .zip with bot.toml)"
        )
    name = _safe_name(source.name, caps)
    mode = 0o755 if runtime == "native" else 0o644
    shutil.copyfile(source, root / name)
    os.chmod(root / name, mode)
    return {"name": source.stem, "runtime": runtime, "entry": name}


def _safe_name(name: str, caps: PackageCaps) -> str:
    """Validate one archive member name; return it normalised (POSIX, no trailing slash)."""
    if not name or "\x00" in name:
        raise BotPackageError("an archive member has an empty or NUL-containing name")
    if "\\" in name:
        raise BotPackageError(f"{name!r}: backslashes are not allowed in paths")
    if len(name) > caps.max_path_chars:
        raise BotPackageError(
            f"{name[:60]!r}...: path longer than {caps.max_path_chars} characters"
        )
    pure = PurePosixPath(name)
    if pure.is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise BotPackageError(f"{name!r}: absolute paths are not allowed")
    if ".." in pure.parts:
        raise BotPackageError(f"{name!r}: '..' is not allowed in paths")
    parts = [p for p in pure.parts if p not in ("", ".")]
    if not parts:
        raise BotPackageError(f"{name!r}: empty path")
    return "/".join(parts)


def _unpack_zip(source: Path, root: Path, caps: PackageCaps) -> None:
    size = source.stat().st_size
    if size > caps.max_archive_bytes:
        raise BotPackageError(f"archive is {size} bytes; the limit is {caps.max_archive_bytes}")
    with zipfile.ZipFile(source) as archive:
        members = archive.infolist()
        if len(members) > caps.max_files:
            raise BotPackageError(
                f"archive has {len(members)} entries; the limit is {caps.max_files}"
            )
        declared = sum(m.file_size for m in members)
        if declared > caps.max_unpacked_bytes:
            raise BotPackageError(
                f"archive unpacks to {declared} bytes; the limit is {caps.max_unpacked_bytes}"
            )
        seen: set[str] = set()
        budget = caps.max_unpacked_bytes
        for member in members:
            name = _safe_name(member.filename, caps)
            if name.lower() in seen:
                raise BotPackageError(f"{name!r} appears twice in the archive")
            seen.add(name.lower())
            if member.flag_bits & 0x1:
                raise BotPackageError(f"{name!r} is encrypted; upload a plain zip")
            mode = member.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if member.is_dir():
                if kind not in (0, stat.S_IFDIR):
                    raise BotPackageError(f"{name!r}: not a regular directory")
                _mkdirs(root, name)
                continue
            if kind == stat.S_IFLNK:
                raise BotPackageError(f"{name!r} is a symbolic link; links are not allowed")
            if kind not in (0, stat.S_IFREG):
                raise BotPackageError(f"{name!r} is a device or special file; not allowed")
            parent = name.rpartition("/")[0]
            if parent:
                _mkdirs(root, parent)
            budget = _extract(archive, member, root / name, budget, mode & 0o100 != 0, caps)


def _mkdirs(root: Path, relative: str) -> None:
    current = root
    for part in relative.split("/"):
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            raise BotPackageError(f"{relative!r} clashes with a file of the same name")
        if not current.exists():
            _mkdir(current)


def _mkdir(path: Path) -> None:
    path.mkdir()
    os.chmod(path, 0o755)  # umask-proof: the sandbox uid must traverse it


def _extract(
    archive: zipfile.ZipFile,
    member: zipfile.ZipInfo,
    target: Path,
    budget: int,
    executable: bool,
    caps: PackageCaps,
) -> int:
    """Copy one member, counting real bytes (declared sizes can lie); returns the budget left."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(target, flags, 0o755 if executable else 0o644)
    except FileExistsError:  # a directory made for an earlier member ("a/b", then "a")
        raise BotPackageError(
            f"{member.filename!r} clashes with a directory of the same name"
        ) from None
    with os.fdopen(fd, "wb") as out, archive.open(member) as data:
        while chunk := data.read(64 * 1024):
            budget -= len(chunk)
            if budget < 0:
                raise BotPackageError(
                    f"archive unpacks to more than {caps.max_unpacked_bytes} bytes"
                )
            out.write(chunk)
    os.chmod(target, 0o755 if executable else 0o644)  # umask-proof
    return budget


def _copy_tree(source: Path, root: Path, caps: PackageCaps) -> None:
    """Copy a bot directory with the same rules as a zip (no links, caps on size and count)."""
    count, total = 0, 0
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".git"))
        rel_dir = Path(dirpath).relative_to(source)
        for entry in [*dirnames, *sorted(filenames)]:
            path = Path(dirpath) / entry
            rel = (rel_dir / entry).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                raise BotPackageError(f"{rel!r} is a symbolic link; links are not allowed")
            if stat.S_ISDIR(info.st_mode):
                _mkdir(root / rel)
                continue
            if not stat.S_ISREG(info.st_mode):
                raise BotPackageError(f"{rel!r} is a device or special file; not allowed")
            count += 1
            if count > caps.max_files:
                raise BotPackageError(f"more than {caps.max_files} files")
            total = _copy_file(path, root / rel, rel, total, caps)


def _copy_file(source: Path, target: Path, rel: str, total: int, caps: PackageCaps) -> int:
    """Copy one regular file without following links (it may have been swapped for one since
    it was listed), counting the bytes really read; returns the new total."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        src = os.open(source, flags)
    except OSError as err:
        raise BotPackageError(f"{rel!r} cannot be read: {err.strerror}") from None
    with os.fdopen(src, "rb") as data:
        info = os.fstat(src)
        if not stat.S_ISREG(info.st_mode):
            raise BotPackageError(f"{rel!r} is not a regular file; not allowed")
        mode = 0o755 if info.st_mode & 0o100 else 0o644
        out_flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(target, out_flags, mode), "wb") as out:
            while chunk := data.read(64 * 1024):
                total += len(chunk)
                if total > caps.max_unpacked_bytes:
                    raise BotPackageError(f"more than {caps.max_unpacked_bytes} bytes")
                out.write(chunk)
            os.fchmod(out.fileno(), mode)  # umask-proof
    return total


def _manifest_root(root: Path) -> Path:
    if any((root / m).is_file() for m in MANIFESTS):
        return root
    children = list(root.iterdir())
    if len(children) == 1 and children[0].is_dir() and not children[0].is_symlink():
        if any((children[0] / m).is_file() for m in MANIFESTS):
            return children[0]
    return root


def _read_manifest(root: Path) -> dict[str, Any]:
    toml_path, json_path = root / "bot.toml", root / "bot.json"
    if toml_path.is_file() and json_path.is_file():
        raise BotPackageError("both bot.toml and bot.json present; keep one")
    try:
        if toml_path.is_file():
            data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
            where = "bot.toml"
        elif json_path.is_file():
            data = json.loads(json_path.read_text(encoding="utf-8"))
            where = "bot.json"
        else:
            raise BotPackageError("no bot.toml or bot.json at the top of the package")
    except BotPackageError:
        raise
    except (ValueError, RecursionError) as err:  # TOML/JSON/UTF-8 errors, 5000-digit integers
        raise BotPackageError(f"manifest is not valid: {str(err)[:200]}") from None
    if not isinstance(data, dict):
        raise BotPackageError(f"{where} must be a table/object")
    unknown = set(data) - MANIFEST_KEYS
    if unknown:
        raise BotPackageError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
            f"(allowed: {', '.join(sorted(MANIFEST_KEYS))})"
        )
    for key, value in data.items():
        if key in LIST_KEYS:
            if isinstance(value, str):
                data[key] = value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise BotPackageError(f"{where}: {key} must be a string or a list of strings")
        elif not isinstance(value, str):
            raise BotPackageError(f"{where}: {key} must be a string")
    return {"name": root.name, **data}


def _package(manifest: dict[str, Any], root: Path, source: Path) -> BotPackage:
    runtime_name = manifest.get("runtime", "python3")
    runtime = RUNTIMES.get(runtime_name)
    if runtime is None:
        raise BotPackageError(
            f"unknown runtime {runtime_name!r} (available: {', '.join(sorted(RUNTIMES))})"
        )
    entry = _safe_name(manifest.get("entry", runtime.default_entry), PackageCaps())
    path = root / entry
    if path.is_symlink() or not path.is_file():
        raise BotPackageError(f"entry point {entry!r} is not a file in the package")
    if runtime.static_executable:
        _check_static_elf(path)
        os.chmod(path, 0o755)
    pythonpath = _folders(manifest.get("pythonpath", []), root, runtime.name)
    sources = _sources(entry, manifest.get("sources", []), root, runtime.compiled)
    name = manifest.get("name") or source.stem
    if len(name) > MAX_NAME_CHARS or not name.isprintable():
        raise BotPackageError(
            f"name {protocol.printable(name, 60)!r}: use at most {MAX_NAME_CHARS} printable "
            "characters"
        )
    return BotPackage(
        name=name, runtime=runtime.name, entry=entry, root=root, source=source,
        pythonpath=pythonpath, sources=sources,
    )  # fmt: skip


def _folders(folders: list[str], root: Path, runtime: str) -> tuple[str, ...]:
    """``pythonpath``: folders of the package (for Python bots only)."""
    if folders and runtime != "python3":
        raise BotPackageError(f"pythonpath is for python3 bots, not {runtime}")
    checked = []
    for folder in folders:
        name = _safe_name(folder, PackageCaps())
        path = root / name
        if path.is_symlink() or not path.is_dir():
            raise BotPackageError(f"pythonpath: {folder!r} is not a folder in the package")
        checked.append(name)
    return tuple(checked)


def _sources(entry: str, more: list[str], root: Path, compiled: bool) -> tuple[str, ...]:
    """``cpp``: the entry and ``sources``, C++ files of the package (for compiled bots only)."""
    if not compiled:
        if more:
            raise BotPackageError("sources is for compiled runtimes (cpp) only")
        return ()
    units = [entry]
    for source in more:
        name = _safe_name(source, PackageCaps())
        path = root / name
        if path.is_symlink() or not path.is_file():
            raise BotPackageError(f"sources: {source!r} is not a file in the package")
        if name not in units:
            units.append(name)
    for unit in units:
        if not unit.lower().endswith(CPP_SUFFIXES):
            raise BotPackageError(f"{unit!r}: a C++ source must end in {', '.join(CPP_SUFFIXES)}")
    return tuple(units)


def _check_static_elf(path: Path) -> None:
    """Refuse anything but a static x86-64 ELF: the sandbox binds no shared libraries for it."""
    try:
        loader = elf_interpreter(path)
    except NotElf as err:
        raise BotPackageError(str(err)) from None
    if loader is not None:
        raise BotPackageError(
            f"{path.name} is dynamically linked (needs {loader}); build it statically (gcc "
            "-static, CGO_ENABLED=0 go build, RUSTFLAGS='-C target-feature=+crt-static')"
        )
