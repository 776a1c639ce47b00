"""Bot packages: what loads, and a clear refusal for every unsafe or broken archive."""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from sandbox import BotPackageError, PackageCaps, load_bot
from sandbox.package import staging_base

BOT = "print('hi')\n"


def make_zip(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    """A zip with (name, data, unix mode) members; mode's file type bits go in external_attr."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return path


def test_single_python_file(tmp_path: Path) -> None:
    source = tmp_path / "greedy.py"
    source.write_text(BOT)
    with load_bot(source) as bot:
        assert (bot.name, bot.runtime, bot.entry) == ("greedy", "python3", "greedy.py")
        assert (bot.root / "greedy.py").read_text() == BOT
        assert bot.root.parent == staging_base()
        assert stat.S_IMODE(staging_base().stat().st_mode) == 0o711  # traversable, not listable
        root = bot.root
    assert not root.exists()  # close() removed the staged copy


def test_zip_with_toml_manifest_and_modules(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "bot.zip",
        [
            ("bot.toml", b'name = "deep"\nruntime = "python3"\nentry = "main.py"\n', 0o100644),
            ("main.py", b"import helper\n", 0o100644),
            ("lib/", b"", 0o40755),
            ("lib/helper.py", b"X = 1\n", 0o100644),
        ],
    )
    with load_bot(archive) as bot:
        assert (bot.name, bot.entry) == ("deep", "main.py")
        assert (bot.root / "lib" / "helper.py").read_text() == "X = 1\n"


def test_zip_with_json_manifest_inside_one_folder(tmp_path: Path) -> None:
    manifest = json.dumps({"runtime": "python3"}).encode()
    archive = make_zip(
        tmp_path / "up.zip",
        [("mybot/bot.json", manifest, 0o100644), ("mybot/bot.py", BOT.encode(), 0o100644)],
    )
    with load_bot(archive) as bot:
        assert bot.entry == "bot.py" and bot.root.name == "mybot"


def test_directory_bot(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "bot.toml").write_text('runtime = "python3"\n')
    (tmp_path / "d" / "bot.py").write_text(BOT)
    with load_bot(tmp_path / "d") as bot:
        assert bot.entry == "bot.py"


def _zip_with(name: str, mode: int = 0o100644, data: bytes = b"x") -> list[tuple[str, bytes, int]]:
    return [("bot.toml", b'runtime = "python3"\n', 0o100644), (name, data, mode)]


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize(
    ("members", "message"),
    [
        (_zip_with("/etc/cron.d/evil"), "absolute paths are not allowed"),
        (_zip_with("../../evil.py"), "'..' is not allowed"),
        (_zip_with("a/../../evil.py"), "'..' is not allowed"),
        (_zip_with("C:/evil.py"), "absolute paths"),
        (_zip_with("a\\..\\evil.py"), "backslashes"),
        (_zip_with("link", stat.S_IFLNK | 0o777, b"/etc/shadow"), "symbolic link"),
        (_zip_with("dev", stat.S_IFCHR | 0o666), "device or special file"),
        (_zip_with("fifo", stat.S_IFIFO | 0o666), "device or special file"),
        (_zip_with("x" * 300 + ".py"), "path longer than"),
        ([("bot.py", BOT.encode(), 0o100644)], "no bot.toml or bot.json"),
        ([("bot.toml", b"runtime = 'cobol'\n", 0o100644)], "unknown runtime 'cobol'"),
        ([("bot.toml", b"runtime = 'python3'\nentry = 'nope.py'\n", 0o100644)], "entry point"),
        ([("bot.toml", b"runtme = 'python3'\n", 0o100644)], "unknown key(s) runtme"),
        ([("bot.toml", b"runtime = [1]\n", 0o100644)], "must be a string"),
        ([("bot.toml", b"runtime = \n", 0o100644)], "manifest is not valid"),
        (
            [("bot.toml", b"", 0o100644), ("bot.json", b"{}", 0o100644)],
            "both bot.toml and bot.json",
        ),
        (
            [("bot.toml", b'runtime = "python3"\n', 0o100644), ("bot.py", b"1", 0o100644)] * 2,
            "appears twice",
        ),
        # the manifest's entry point and runtime are checked like member names
        ([("bot.toml", b"entry = '../../etc/passwd'\n", 0o100644)], "'..' is not allowed"),
        ([("bot.toml", b"entry = '/etc/passwd'\n", 0o100644)], "absolute paths"),
        ([("bot.toml", b"runtime = 'python3 '\n", 0o100644)], "unknown runtime"),
        ([("bot.toml", b"runtime = '__class__'\n", 0o100644)], "unknown runtime"),
        # a file named like a directory made for an earlier member (was an OSError)
        (
            _zip_with("a/b") + [("a", b"x", 0o100644), ("bot.py", BOT.encode(), 0o100644)],
            "clashes with a directory",
        ),
        # manifests the parsers choke on (were RecursionError / ValueError, not a refusal)
        ([("bot.json", b"[" * 100_000 + b"]" * 100_000, 0o100644)], "manifest is not valid"),
        ([("bot.toml", b"a = " + b"[" * 100_000 + b"]" * 100_000, 0o100644)], "not valid"),
        ([("bot.json", b'{"name": 1' + b"1" * 5000 + b"}", 0o100644)], "manifest is not valid"),
        # the name is shown to everybody: printable and short
        (
            [("bot.toml", b'name = "a\\u0000\\u001b[2J"\n', 0o100644), ("bot.py", b"1", 0o100644)],
            "printable characters",
        ),
        (
            [("bot.toml", b'name = "' + b"n" * 500 + b'"\n', 0o100644), ("bot.py", b"1", 0o100644)],
            "at most 100",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_refusals(tmp_path: Path, members: list[tuple[str, bytes, int]], message: str) -> None:
    archive = make_zip(tmp_path / "bad.zip", members)
    with pytest.raises(BotPackageError) as err:
        load_bot(archive)
    assert message in str(err.value)
    assert not any(staging_base().glob("*/bad*"))


def test_caps_on_count_and_sizes(tmp_path: Path) -> None:
    many = [("bot.toml", b'runtime = "python3"\n', 0o100644)]
    many += [(f"f{i}.py", b"", 0o100644) for i in range(20)]
    with pytest.raises(BotPackageError, match="21 entries; the limit is 10"):
        load_bot(make_zip(tmp_path / "many.zip", many), caps=PackageCaps(max_files=10))

    bomb = _zip_with("big.bin", data=b"\0" * 1_000_000)  # compresses to ~1 KB
    with pytest.raises(BotPackageError, match="unpacks to 1000020 bytes; the limit is 100000"):
        load_bot(
            make_zip(tmp_path / "bomb.zip", bomb), caps=PackageCaps(max_unpacked_bytes=100_000)
        )

    big = make_zip(tmp_path / "big.zip", _zip_with("r.bin", data=os.urandom(50_000)))
    with pytest.raises(BotPackageError, match="the limit is 10000"):
        load_bot(big, caps=PackageCaps(max_archive_bytes=10_000))


def test_lying_sizes_are_caught_while_unpacking(tmp_path: Path) -> None:
    """A member whose headers claim 10 bytes but that inflates to 200 KB is refused."""
    path = make_zip(tmp_path / "liar.zip", _zip_with("big.bin", data=b"\0" * 200_000))
    data = bytearray(path.read_bytes())
    # patch the uncompressed size in the central directory (and local header) to 10 bytes
    for signature, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            central = signature == b"PK\x01\x02"
            name_len = int.from_bytes(data[start + (28 if central else 26) :][:2], "little")
            name_at = start + (46 if central else 30)
            if data[name_at : name_at + name_len] == b"big.bin":
                data[start + offset : start + offset + 4] = (10).to_bytes(4, "little")
            start += 4
    path.write_bytes(bytes(data))
    with pytest.raises(BotPackageError):
        load_bot(path, caps=PackageCaps(max_unpacked_bytes=100_000))


def test_encrypted_member_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "enc.zip", _zip_with("bot.py"))
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x01\x02", 8), (b"PK\x03\x04", 6)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            data[start + offset] |= 0x1  # general purpose flag: encrypted
            start += 4
    path.write_bytes(bytes(data))
    with pytest.raises(BotPackageError, match="encrypted"):
        load_bot(path)


def test_directory_with_symlink_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "bot.toml").write_text('runtime = "python3"\n')
    (tmp_path / "d" / "bot.py").symlink_to("/etc/passwd")
    with pytest.raises(BotPackageError, match="symbolic link"):
        load_bot(tmp_path / "d")


def test_unknown_single_file_and_missing_path(tmp_path: Path) -> None:
    (tmp_path / "bot.rb").write_text("puts 1")
    with pytest.raises(BotPackageError, match="cannot tell the runtime"):
        load_bot(tmp_path / "bot.rb")
    with pytest.raises(BotPackageError, match="no such file"):
        load_bot(tmp_path / "nope.py")
    (tmp_path / "junk.zip").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(BotPackageError):
        load_bot(tmp_path / "junk.zip")


def test_native_runtime_refuses_dynamic_executables(tmp_path: Path) -> None:
    dynamic = Path("/usr/bin/true").read_bytes()
    path = make_zip(
        tmp_path / "native.zip",
        [("bot.toml", b'runtime = "native"\n', 0o100644), ("bot", dynamic, 0o100755)],
    )
    with pytest.raises(BotPackageError, match="dynamically linked"):
        load_bot(path)
    text = make_zip(
        tmp_path / "text.zip",
        [("bot.toml", b'runtime = "native"\n', 0o100644), ("bot", b"#!/bin/sh\n", 0o100755)],
    )
    with pytest.raises(BotPackageError, match="not a 64-bit"):
        load_bot(text)


def test_staged_directories_ignore_the_umask(tmp_path: Path) -> None:
    """A worker with umask 077 must still stage subdirectories the sandbox uid can traverse."""
    archive = make_zip(
        tmp_path / "deep.zip",
        [
            ("bot.toml", b'runtime = "python3"\n', 0o100644),
            ("bot.py", BOT.encode(), 0o100644),
            ("lib/helper.py", b"", 0o100644),  # lib/ comes from the member's path
        ],
    )
    (tmp_path / "d" / "pkg").mkdir(parents=True)
    (tmp_path / "d" / "bot.toml").write_text('runtime = "python3"\n')
    (tmp_path / "d" / "bot.py").write_text(BOT)
    (tmp_path / "d" / "pkg" / "mod.py").write_text("")
    old = os.umask(0o077)
    try:
        bots = [load_bot(archive), load_bot(tmp_path / "d")]
    finally:
        os.umask(old)
    for bot in bots:
        with bot:
            for path in [bot.root, *bot.root.rglob("*")]:
                mode = stat.S_IMODE(path.stat().st_mode)
                assert mode in (0o755, 0o644), (path, oct(mode))


def test_directory_copy_never_follows_links(tmp_path: Path) -> None:
    """A file swapped for a link after it was listed is refused, not followed (nor chmodded)."""
    from sandbox.package import _copy_file

    target = tmp_path / "secret"
    target.write_text("secret")
    target.chmod(0o600)
    (tmp_path / "link").symlink_to(target)
    (tmp_path / "out").mkdir()
    with pytest.raises(BotPackageError, match="cannot be read"):
        _copy_file(tmp_path / "link", tmp_path / "out" / "x", "x", 0, PackageCaps())
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not (tmp_path / "out" / "x").exists()


def test_member_permissions_are_normalised(tmp_path: Path) -> None:
    """setuid/setgid/sticky bits and odd modes from the archive are dropped: 0755 or 0644."""
    archive = make_zip(
        tmp_path / "modes.zip",
        [
            ("bot.toml", b'runtime = "python3"\n', 0o100000),  # mode 000
            ("bot.py", BOT.encode(), 0o106777),  # setuid + setgid, world-writable
            ("tool", b"", 0o101777),  # sticky
            ("locked/", b"", 0o40000),  # a directory nobody may enter
            ("locked/x.py", b"", 0o100666),
        ],
    )
    with load_bot(archive) as bot:
        modes = {
            p.relative_to(bot.root).as_posix(): stat.S_IMODE(p.stat().st_mode)
            for p in bot.root.rglob("*")
        }
    assert modes == {
        "bot.toml": 0o644, "bot.py": 0o755, "tool": 0o755, "locked": 0o755, "locked/x.py": 0o644,
    }  # fmt: skip
