"""The writable global and static variables of a Tessera user program, and
which of them are the program's own rather than those of the C library,
the runtime and LWMPI that every program links.

They matter under `mpirun --ranks threads`, where the MPI processes of a
compute cluster are threads of one process and so share one copy of each
(docs/programs.md, "Global variables in MPI programs"). A writable
variable is an
STT_OBJECT symbol defined in an allocated, writable section (.data, .bss,
.sdata, .sbss, with or without -fdata-sections' suffixes) or a COMMON one;
thread-local variables have STT_TLS symbols and are not listed. GCC names
a function's static variable x.N: display_names() shows it as x.

Where they come from, at launch, when only the linked ELF is left:

  - the record: tools/mpicc lists the variables its user inputs define
    (the sources it compiles, the objects and libraries it is given) in an
    ELF note, RECORD_SECTION, that it links into the program (record_asm();
    `readelf -n` shows it); the ELF's own symbol table then drops those the
    linker removed (--gc-sections). Exact: the runtime's variables are never
    in it. A stripped program has no symbol table: its record counts as is.
  - no record (a program of the build, made by CMake's tessera_add_program,
    or linked by hand): the ELF's writable variables minus every name that
    the build's runtime defines: its start files and libraries, as mpicc.cfg
    lists them (LWMPI, the runtime, the C library, libm, libgcc), read in
    full, so that none of their variables, static ones included, is taken
    for the program's. Without that build, nothing is reported. Names are
    all it compares: a program's variable named like one of the runtime's
    is missed, and a program linked with an older runtime may show a
    variable that the runtime has since renamed.

Size-0 objects hold no state (the linker's _GLOBAL_OFFSET_TABLE_): never
listed.

Reads little-endian ELF64 files (both platforms' programs) and ar archives
with the standard library only, so that the unit tests need no toolchain.
"""
import os
import struct

RECORD_SECTION = ".note.tessera.globals"
RECORD_OWNER = b"Tessera"               # the note's name (readelf -n shows it)
NT_GLOBALS = 1                          # the note's type: the names, NUL-terminated

STT_OBJECT = 1
SHN_COMMON = 0xFFF2
SHN_LORESERVE = 0xFF00
SHT_SYMTAB = 2
SHF_WRITE = 1
SHF_ALLOC = 2
AR_MAGIC = b"!<arch>\n"
# Writable objects the compiler makes, not the program: the personality
# routine's address that a C++ object with exceptions keeps for its unwind
# tables (RISC-V), written once by the linker's relocation, never by code.
COMPILER_MADE = ("DW.ref.",)


class ElfFile:
    """The section headers and symbols of a little-endian ELF64 file in memory.
    Raises ValueError for anything else."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
            raise ValueError("not a little-endian ELF64 file")
        self.data = data
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        if shoff == 0:
            shnum = 0
        elif shnum == 0:                       # more than SHN_LORESERVE sections
            shnum = struct.unpack_from("<Q", data, shoff + 0x20)[0]
        if shoff + shnum * shentsize > len(data) or (shnum and shentsize < 0x40):
            raise ValueError("truncated section header table")
        # (name offset, type, flags, offset, size, link, entsize) per section
        self.sections = [struct.unpack_from("<IIQ8xQQI4x8xQ", data, shoff + i * shentsize)
                         for i in range(shnum)]
        self.shstrtab = self.sections[shstrndx] if shstrndx < shnum else None

    def _string(self, table, offset):
        start = table[3] + offset
        end = self.data.find(b"\0", start, table[3] + table[4])
        return self.data[start:end if end >= 0 else start].decode("utf-8", "replace")

    def section(self, name):
        """The bytes of the section called `name`; None when there is none."""
        for sec in self.sections if self.shstrtab else []:
            if self._string(self.shstrtab, sec[0]) == name:
                return self.data[sec[3]:sec[3] + sec[4]] if sec[1] != 8 else b""  # 8: NOBITS
        return None

    def has_symtab(self):
        return any(sec[1] == SHT_SYMTAB for sec in self.sections)

    def writable_variables(self):
        """{raw name: size} of the writable variables the file defines."""
        out = {}
        for sec in self.sections:
            if sec[1] != SHT_SYMTAB or sec[6] != 24 or sec[5] >= len(self.sections):
                continue
            strtab = self.sections[sec[5]]
            for at in range(sec[3] + 24, sec[3] + sec[4] - 23, 24):   # entry 0 is null
                name, info, _other, shndx, _value, size = struct.unpack_from(
                    "<IBBHQQ", self.data, at)
                if info & 0xF != STT_OBJECT:
                    continue
                if shndx == SHN_COMMON or (0 < shndx < min(SHN_LORESERVE, len(self.sections))
                                           and self.sections[shndx][2] & (SHF_WRITE | SHF_ALLOC)
                                           == SHF_WRITE | SHF_ALLOC):
                    text = self._string(strtab, name)
                    if not text.startswith(COMPILER_MADE):
                        out[text] = size
        return out


def members(data):
    """The ELF files in `data`: itself, or the members of an ar archive."""
    if not data.startswith(AR_MAGIC):
        yield data
        return
    at = len(AR_MAGIC)
    while at + 60 <= len(data):
        header = data[at:at + 60]
        try:
            size = int(header[48:58])
        except ValueError:
            return                              # not an archive we understand
        body = data[at + 60:at + 60 + size]
        if header[:16].startswith(b"#1/"):      # BSD: the name heads the body
            try:
                body = body[int(header[3:16]):]
            except ValueError:
                return
        if body[:4] == b"\x7fELF":              # skips the symbol and long-name tables
            yield body
        at += 60 + size + (size & 1)


def file_variables(path):
    """The raw names of the writable variables that an object file, an
    archive's members or a linked program define. Raises OSError, ValueError."""
    with open(path, "rb") as f:
        data = f.read()
    names = set()
    for member in members(data):
        try:
            names.update(ElfFile(member).writable_variables())
        except (ValueError, struct.error):
            if member is data:
                raise ValueError(f"{path}: not a little-endian ELF64 file") from None
    return names


def display_names(raw):
    """Sorted names as a C programmer wrote them: x.N (a function's static) is x."""
    return sorted({name.rsplit(".", 1)[0] if name.rpartition(".")[2].isdigit() else name
                   for name in raw})


# --- the record mpicc links into a program -------------------------------------

def record_bytes(names):
    """The record for these raw names: an ELF note (name RECORD_OWNER, type
    NT_GLOBALS) whose descriptor is each name, NUL-terminated, in order."""
    owner = RECORD_OWNER + b"\0"
    desc = b"".join(n.encode("utf-8") + b"\0" for n in sorted(set(names)))
    return (struct.pack("<III", len(owner), len(desc), NT_GLOBALS) + _pad4(owner)
            + _pad4(desc))


def _pad4(data):
    return data + bytes(-len(data) % 4)


def record_asm(names):
    """An assembly source whose object, linked into a program, carries the
    record: a note section, which takes no memory in the image (it is not
    allocated) and which --gc-sections keeps (an unreferenced section of
    another type it would drop). The object asks for no executable stack,
    as compiled ones do (else the x86-64 linker warns)."""
    data = record_bytes(names)
    lines = [f'\t.section {RECORD_SECTION},"",@note', "\t.balign 4"]
    for i in range(0, len(data), 16):
        lines.append("\t.byte " + ",".join(str(b) for b in data[i:i + 16]))
    lines.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n"


def read_record(elf):
    """The raw names in an ElfFile's record; None when it has none."""
    data = elf.section(RECORD_SECTION)
    at = 0
    while data and at + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from("<III", data, at)
        name_at = at + 12
        desc_at = name_at + namesz + (-namesz % 4)
        if desc_at + descsz > len(data):
            return None
        if kind == NT_GLOBALS and data[name_at:name_at + namesz] == RECORD_OWNER + b"\0":
            desc = data[desc_at:desc_at + descsz]
            return {n.decode("utf-8", "replace") for n in desc.split(b"\0") if n}
        at = desc_at + descsz + (-descsz % 4)
    return None


# --- the program's own -----------------------------------------------------------

def runtime_files(cfg):
    """The build's start files and libraries, from mpicc.cfg's values
    (key -> list of strings): what every program links besides its own code."""
    return [f for f in cfg.get("startfiles", []) + cfg.get("libs", []) + cfg.get("syslibs", [])
            if not f.startswith("-") and os.path.isfile(f)]


def read_config(path):
    """mpicc.cfg as key -> list of strings (values are ;-lists)."""
    cfg = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                key, value = line.split("=", 1)
                cfg[key] = [v for v in value.split(";") if v]
    return cfg


def own_variables(program, runtime=None):
    """(display names, how) of the writable variables `program` (a linked
    ELF's path) defines itself. how: "record" (mpicc's record), "runtime"
    (the ELF's minus the runtime's: `runtime`, a list of start files and
    libraries, or a callable returning it), or None when it cannot tell
    (no record, no runtime, an unreadable file): then the names are []."""
    try:
        with open(program, "rb") as f:
            elf = ElfFile(f.read())
        record = read_record(elf)
        present = {n for n, size in elf.writable_variables().items() if size}
        if record is not None:
            return display_names(record & present if elf.has_symtab() else record), "record"
        files = runtime() if callable(runtime) else runtime
        if not files or not elf.has_symtab():
            return [], None
        theirs = set()
        for path in files:
            theirs |= file_variables(path)
        return display_names(present - theirs), "runtime"
    except (OSError, ValueError, struct.error):
        return [], None
