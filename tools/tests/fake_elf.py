"""Small little-endian ELF64 files and ar archives made in Python, for the
tests of what tools/tessera/program_globals.py reads from programs (no toolchain).

    elf(symbols, record=None)       bytes of an ELF file whose symbol table
                                    holds `symbols`: (name, section, size),
                                    section one of SECTIONS or "COMMON",
                                    or (name, section, size, type) with type
                                    "object" (default), "tls" or "func";
                                    record: names for mpicc's note (None: no
                                    note); symtab=False leaves the symbol
                                    table out (a stripped program)
    archive({member: bytes})        an ar archive (GNU format)
"""
import struct

from tessera import program_globals

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS, SHT_NOTE = 1, 2, 3, 8, 7
W, A, X, TLS = 1, 2, 4, 0x400
# name -> (type, flags) of the sections every fake file has, in this order
SECTIONS = {".text": (SHT_PROGBITS, A | X), ".rodata": (SHT_PROGBITS, A),
            ".data": (SHT_PROGBITS, W | A), ".sdata": (SHT_PROGBITS, W | A),
            ".bss": (SHT_NOBITS, W | A), ".sbss.total": (SHT_NOBITS, W | A),
            ".tdata": (SHT_PROGBITS, W | A | TLS), ".tbss": (SHT_NOBITS, W | A | TLS)}
TYPES = {"object": 1, "func": 2, "tls": 6}
SHN_COMMON = 0xFFF2


class _Strings:
    def __init__(self):
        self.data = b"\0"

    def add(self, s):
        at = len(self.data)
        self.data += s.encode() + b"\0"
        return at


def elf(symbols=(), record=None, symtab=True, local=()):
    """See the module's doc. local: names of symbols to make STB_LOCAL."""
    shstr, strtab = _Strings(), _Strings()
    names = list(SECTIONS)
    sections = [(0, 0, 0, b"", 0, 0, 0)]  # (name, type, flags, data, link, info, entsize)
    for name in names:
        kind, flags = SECTIONS[name]
        sections.append((shstr.add(name), kind, flags, b"" if kind == SHT_NOBITS else bytes(64),
                         0, 0, 0))
    if record is not None:
        sections.append((shstr.add(program_globals.RECORD_SECTION), SHT_NOTE, 0,
                         program_globals.record_bytes(record), 0, 0, 0))
    if symtab:
        syms = bytes(24)
        for sym in sorted(symbols, key=lambda s: s[0] not in local):   # locals first
            name, section, size = sym[:3]
            kind = TYPES[sym[3] if len(sym) > 3 else "object"]
            bind = 0 if name in local else 1
            shndx = SHN_COMMON if section == "COMMON" else names.index(section) + 1
            syms += struct.pack("<IBBHQQ", strtab.add(name), bind << 4 | kind, 0, shndx, 0, size)
        symtab_index = len(sections)
        first_global = 1 + sum(1 for sym in symbols if sym[0] in local)
        sections.append((shstr.add(".symtab"), SHT_SYMTAB, 0, syms, symtab_index + 1,
                         first_global, 24))
        sections.append((shstr.add(".strtab"), SHT_STRTAB, 0, strtab.data, 0, 0, 0))
    shstrndx = len(sections)
    sections.append((shstr.add(".shstrtab"), SHT_STRTAB, 0, shstr.data, 0, 0, 0))

    body = bytearray(64)
    offsets = []
    for _, _, _, data, _, _, _ in sections:
        body += bytes(-len(body) % 8)
        offsets.append(len(body))
        body += data
    body += bytes(-len(body) % 8)
    shoff = len(body)
    for (name, kind, flags, data, link, info, entsize), off in zip(sections, offsets):
        size = 64 if kind == SHT_NOBITS else len(data)
        align = 4 if kind == SHT_NOTE else 8
        body += struct.pack("<IIQQQQIIQQ", name, kind, flags, 0, off if name else 0, size, link,
                            info, align, entsize)
    header = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 2, 243, 1, 0, 0, shoff, 0, 64, 56, 0, 64, len(sections), shstrndx)
    body[:64] = header
    return bytes(body)


def archive(members):
    """An ar archive of {name: bytes}, with a (dummy) symbol table and a
    long-name table first, as GNU ar writes them."""
    out = bytearray(b"!<arch>\n")

    def add(name, data):
        out.extend(f"{name:<16}{0:<12}{0:<6}{0:<6}{644:<8}{len(data):<10}`\n".encode())
        out.extend(data + (b"\n" if len(data) & 1 else b""))

    add("/", struct.pack(">I", 0))
    longnames = b""
    entries = []
    for name, data in members.items():
        if len(name) > 15:
            entries.append((f"/{len(longnames)}", data))
            longnames += name.encode() + b"/\n"
        else:
            entries.append((name + "/", data))
    if longnames:
        add("//", longnames)
    for name, data in entries:
        add(name, data)
    return bytes(out)
