"""Hostile uploads, fuzzed with Hypothesis: the package unpacker (``sandbox.load_bot``) and the
upload endpoint (``POST /api/bots/``) take zip bombs, nested zips, path traversal, links, device
files, huge or malformed manifests in any encoding, non-zip data, empty files and enormous file
counts. The unpacker either stages a package inside its staging folder or refuses with
``BotPackageError``; the endpoint answers a 4xx with a clear message and stores nothing, or a
201; never a 5xx."""

from __future__ import annotations

import io
import os
import stat
import struct
import zipfile
from pathlib import Path

import pytest
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.models import Bot, BotVersion, Package
from sandbox import BotPackageError, load_bot
from sandbox.package import staging_base
from tests.platform.api_fixtures import World, world_fixture  # noqa: F401

BOT = b"import json, sys\nfor line in sys.stdin:\n    pass\n"

names = st.one_of(
    st.sampled_from(["bot.py", "bot.toml", "bot.json", "main.py", "a/b.py", "a", "a/", "./bot.py",
                     "../escape.py", "a/../../escape.py", "/etc/passwd", "C:/x.py", "a\\b.py",
                     "BOT.TOML", "dir/bot.toml", "", ".", "x" * 300, "ü/é.py", "nul\x00.py"]),
    st.text(min_size=0, max_size=40),
)  # fmt: skip
manifests = st.one_of(
    st.sampled_from([
        b'runtime = "python3"\n', b'runtime = "python3"\nentry = "main.py"\n',
        b'runtime = "cobol"\n', b'runtime = "python3"\nentry = "../../etc/passwd"\n',
        b'runtime = "python3"\nentry = "/bin/sh"\n', b'runtime = 3\n', b'[[[', b"",
        b'runtime = "python3"\nextra = 1\n', 'name = "ü"\n'.encode("utf-16"),
        b'name = "' + b"n" * 100_000 + b'"\nruntime = "python3"\n', b"\xff\xfe\x00garbage",
        b'{"runtime": "python3"}', b'{"runtime": ["python3"]}',
    ]),
    st.binary(max_size=200),
)  # fmt: skip
# unix mode bits of a member: regular, executable, symlink, device, fifo, directory
modes = st.sampled_from([0, 0o100644, 0o100755, stat.S_IFLNK | 0o777, stat.S_IFCHR | 0o644,
                         stat.S_IFIFO | 0o644, stat.S_IFDIR | 0o755])  # fmt: skip


@st.composite
def archives(draw: st.DrawFn) -> bytes:
    """A zip built from hostile parts (or, sometimes, something that is not a zip at all)."""
    kind = draw(st.sampled_from(["zip", "zip", "zip", "bomb", "many", "nested", "raw"]))
    if kind == "raw":
        return draw(st.one_of(st.just(b""), st.binary(max_size=300),
                              st.just(b"PK\x03\x04" + b"\x00" * 40)))  # fmt: skip
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if draw(st.booleans()):
            archive.writestr(draw(st.sampled_from(["bot.toml", "bot.json"])), draw(manifests))
        if kind == "bomb":  # 40 MiB of zeros in a few dozen KiB
            archive.writestr("bot.py", b"\0" * (40 * 1024 * 1024))
        elif kind == "many":
            for n in range(draw(st.integers(250, 400))):
                archive.writestr(f"f{n}.py", b"")
        elif kind == "nested":
            inner = io.BytesIO()
            with zipfile.ZipFile(inner, "w") as nested:
                nested.writestr("bot.toml", b'runtime = "python3"\n')
                nested.writestr("bot.py", BOT)
            archive.writestr("inner.zip", inner.getvalue())
        for _ in range(draw(st.integers(0, 5))):
            name = draw(names)
            info = zipfile.ZipInfo(name if name else "x")
            info.filename = name  # bypass ZipInfo's own clean-up of the name
            info.external_attr = draw(modes) << 16
            archive.writestr(info, draw(st.one_of(st.just(BOT), st.binary(max_size=64))))
    data = bytearray(buffer.getvalue())
    for _ in range(draw(st.integers(0, 3))):  # damage: bytes overwritten anywhere
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


def corrupt_member_offset() -> bytes:
    """A zip whose end record places the central directory 100 bytes too far: zipfile then
    computes a negative member offset and ``seek`` fails with EINVAL (an OSError)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", b'runtime = "python3"\n')
        archive.writestr("bot.py", BOT)
    data = bytearray(buffer.getvalue())
    declared = struct.unpack("<I", data[-6:-2])[0]  # the end record has no comment
    data[-6:-2] = struct.pack("<I", declared + 100)
    return bytes(data)


def test_regression_a_corrupt_member_offset_is_refused_not_a_crash(tmp_path: Path) -> None:
    source = tmp_path / "bot.zip"
    source.write_bytes(corrupt_member_offset())
    with pytest.raises(BotPackageError, match="damaged"):
        load_bot(source)


def staged() -> set[str]:
    return {p.name for p in staging_base().iterdir() if p.name.startswith(f"bot-{os.getpid()}-")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=archives(), suffix=st.sampled_from([".zip", ".py", ".bin", ""]))
def test_the_unpacker_stages_safely_or_refuses_clearly(data: bytes, suffix: str) -> None:
    folder = Path(staging_base().parent) / f"fuzz-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    source = folder / f"upload{suffix}"
    source.write_bytes(data)
    before = staged()
    try:
        with load_bot(source) as package:
            root = package.root.resolve()
            assert root.is_relative_to(staging_base().resolve())
            assert (root / package.entry).resolve().is_relative_to(root)
            for path in root.rglob("*"):  # only plain files and folders were written
                mode = path.lstat().st_mode
                assert stat.S_ISREG(mode) or stat.S_ISDIR(mode), path
                assert path.resolve().is_relative_to(root)
    except BotPackageError as err:
        assert str(err).strip() and "Traceback" not in str(err)
    finally:
        source.unlink()
    assert staged() == before  # nothing staged is left behind, refused or not


def multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    """A multipart body written by hand, so the file name goes out exactly as drawn."""
    boundary = "fuzz-boundary-7d3f"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
             .encode() for k, v in fields.items()]  # fmt: skip
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                 f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                 .encode("utf-8", "surrogateescape") + data + b"\r\n")  # fmt: skip
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=archives(), filename=st.one_of(
    st.sampled_from(["bot.zip", "bot.py", "bot", "x.js", "../../bot.zip", "/etc/bot.py",
                     "b\u00f6t.zip", "", ".", "..", "a\\b.py", "x" * 500 + ".py"]),
    st.text(alphabet=st.characters(blacklist_characters='"\r\n', blacklist_categories=["Cs"]),
            max_size=30),
))  # fmt: skip
def test_the_upload_endpoint_refuses_hostile_packages_with_a_4xx_and_stores_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch, data: bytes, filename: str
) -> None:
    monkeypatch.setattr("bots.services._enqueue_validation", lambda *a, **k: None)
    counts = (Bot.objects.count(), BotVersion.objects.count(), Package.objects.count())
    name = f"fuzz{Bot.objects.count()}"
    body, content_type = multipart({"name": name, "game": "belote"}, filename, data)
    with override_settings(ARENA_UPLOADS_PER_HOUR=0):
        response = world.client("owner").generic("POST", "/api/bots/", body, content_type)
    assert response.status_code < 500, response.content[:500]
    if response.status_code == 201:
        assert BotVersion.objects.filter(bot__name=name).count() == 1
        return
    assert response.status_code in (400, 409, 413), response.content[:500]
    error = response.json()["error"]
    assert error["code"] and error["message"].strip()
    assert (Bot.objects.count(), BotVersion.objects.count(), Package.objects.count()) == counts
