"""Compiled runtimes: a version's sources are built once, in the sandbox, and the executable is
stored as a package (content-addressed), so no worker ever compiles them again.

A build is keyed by the source package and the toolchain's identity (compiler, version, flags):
a second version with the same bytes, a retried validation or any other worker finds it. The
compiler runs in the validation task, outside any transaction; only storing the result is one.
"""

from __future__ import annotations

import hashlib

from django.db import transaction

from bots.models import BotVersion, Build, Package
from matches.execution import PlatformFailure
from matches.package_cache import CorruptPackage, package_path
from sandbox import BotPackageError, SandboxUnavailable, load_bot
from sandbox.compile import CompileError, compile_sources, toolchain
from sandbox.runtimes import RuntimeUnavailable


def build_for_version(*, version: BotVersion) -> Build:
    """The build of ``version``'s sources, compiling them if no build exists yet. Raises
    :class:`CompileError` (the bot's fault: rejects it) or :class:`PlatformFailure`."""
    try:
        identity = toolchain().identity
    except RuntimeUnavailable as err:
        raise PlatformFailure(str(err)) from None
    existing = Build.objects.filter(source_id=version.package_id, toolchain=identity).first()
    if existing is not None:
        return existing
    try:
        with load_bot(package_path(version.sha256, version.filename)) as sources:
            compiled = compile_sources(sources)
    except CompileError:
        raise
    except (SandboxUnavailable, RuntimeUnavailable, CorruptPackage, BotPackageError) as err:
        raise PlatformFailure(f"{type(err).__name__}: {err}") from err
    digest = hashlib.sha256(compiled.binary).hexdigest()
    with transaction.atomic():
        Package.objects.get_or_create(
            sha256=digest, defaults={"data": compiled.binary, "size": len(compiled.binary)}
        )
        build, _created = Build.objects.get_or_create(  # a concurrent validation may have won
            source_id=version.package_id, toolchain=identity,
            defaults={"binary_id": digest, "log": compiled.log, "seconds": compiled.seconds},
        )  # fmt: skip
    return build
