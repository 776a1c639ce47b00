"""Just enough ELF parsing to find a program's dynamic loader (``PT_INTERP``)."""

from __future__ import annotations

import struct
from pathlib import Path

PT_INTERP = 3
EM_X86_64 = 62


class NotElf(ValueError):
    pass


def elf_interpreter(path: str | Path) -> str | None:
    """The loader a 64-bit little-endian x86-64 ELF asks for, or None if it is static."""
    with open(path, "rb") as f:
        header = f.read(64)
        if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise NotElf(f"{Path(path).name}: not a 64-bit little-endian ELF file")
        machine = struct.unpack_from("<H", header, 18)[0]
        if machine != EM_X86_64:
            raise NotElf(f"{Path(path).name}: not an x86-64 program (e_machine={machine})")
        phoff = struct.unpack_from("<Q", header, 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", header, 54)
        if phnum > 512 or phentsize < 56:
            raise NotElf(f"{Path(path).name}: malformed ELF program headers")
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        for i in range(phnum):
            p_type, _flags, p_offset, _va, _pa, p_filesz = struct.unpack_from(
                "<IIQQQQ", table, i * phentsize
            )
            if p_type == PT_INTERP:
                f.seek(p_offset)
                return f.read(min(p_filesz, 4096)).split(b"\0", 1)[0].decode()
    return None
