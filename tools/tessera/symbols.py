"""A program's addresses as function, file and line, for fault reports.

The kernel reports a fault that kills a rank with raw addresses (the pc,
then a backtrace of return addresses: kernel/fault_report.cpp); mpirun turns
them into places with the program's own ELF, the one the user built (the
payload's copy is stripped). The function comes from the DWARF debug
information when there is some (mpicc builds with -g by default), with the
functions inlined at that address; else from the symbol table. File and
line come from the DWARF line table. pyelftools does the ELF and DWARF work.

    symbols = Symbols("app.elf")
    symbols.place(0x40000548)           # 'sum_list at crash.c:7, inlined into main at crash.c:18'
    symbols.place(0x4000af94, call=True)  # a return address: the call before it
"""
import bisect
import os
import re

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

_FUNC = "STT_FUNC"


class Symbols:
    """The functions and lines of one ELF program. Every look-up answers,
    with less detail when the program has no debug information (raises
    OSError or ValueError only when the file cannot be read as ELF)."""

    def __init__(self, path):
        try:
            with open(path, "rb") as f:
                elf = ELFFile(f)
                self._functions = _functions(elf)
                self._lines, self._scopes = _debug_info(elf) if elf.has_dwarf_info() else ([], [])
        except ELFError as e:
            raise ValueError(f"{path}: not an ELF file ({e})") from None
        self._line_starts = [row[0] for row in self._lines]

    def place(self, addr, call=False):
        """Where addr is: 'FUNCTION at FILE:LINE', with ', inlined into
        CALLER at FILE:LINE' for each function inlined there, or
        'FUNCTION+0xOFF' without line information, or '??'. call: addr is
        a return address, so the place is that of the call just before it."""
        look = addr - 1 if call else addr
        where = self._line(look)
        inner = self._scope(look)[::-1]     # innermost first
        if inner:
            parts = [inner[0][0] + _at(where)]
            for (_, file, line), (outer, _, _) in zip(inner, inner[1:]):
                parts.append(f"inlined into {outer}{_at((file, line))}")
            return ", ".join(parts)
        function = self._function(look)
        if function is None:
            return "??" + _at(where)
        name, start = function
        return name + _at(where) if where else f"{name}+{addr - start:#x}"

    def with_leaf_caller(self, pcs, ra):
        """The backtrace pcs (the faulting pc, then the frame records'
        return addresses) with the return-address register ra inserted as
        the caller of the faulting function when that function is a leaf
        that saved no frame record: when ra is in another function than the
        pc, and is not the next return address already."""
        pc_function, ra_function = self._function(pcs[0]), self._function(ra - 1)
        if ra_function is None or ra_function == pc_function or pcs[1:2] == [ra]:
            return pcs
        return pcs[:1] + [ra] + pcs[1:]

    def _function(self, addr):
        """(name, start) of the symbol-table function holding addr, or None."""
        i = bisect.bisect_right(self._functions, (addr, chr(0x10FFFF))) - 1
        if i >= 0:
            start, name, size = self._functions[i]
            if start <= addr < start + max(size, 1):
                return name, start
        return None

    def _line(self, addr):
        """(file, line) of the line-table row holding addr, or None."""
        i = bisect.bisect_right(self._line_starts, addr) - 1
        if i >= 0 and addr < self._lines[i][1]:
            return self._lines[i][2], self._lines[i][3]
        return None

    def _scope(self, addr):
        """The chain of the smallest DWARF scope holding addr (see
        _debug_info), or []."""
        for low, high, chain in self._scopes:
            if low <= addr < high:
                return chain
        return []


def _at(where):
    return f" at {where[0]}:{where[1]}" if where else ""


def _functions(elf):
    """Sorted [(start, name, size)] of the symbol table's functions."""
    table = elf.get_section_by_name(".symtab")
    if table is None:
        return []
    return sorted((s["st_value"], s.name, s["st_size"]) for s in table.iter_symbols()
                  if s["st_info"]["type"] == _FUNC and s["st_value"] and s.name)


def _shown_path(path):
    """A source path as the user wants to read it: relative to the current
    folder when under it."""
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def _debug_info(elf):
    """(lines, scopes) of the DWARF information: lines sorted [(start, end,
    file, line)]; scopes [(low, high, chain)] for each range of code,
    chain the (name, call file, call line) of the subprogram and the
    scopes inlined in it down to that range."""
    dwarf = elf.get_dwarf_info()
    lines, scopes = [], []
    for cu in dwarf.iter_CUs():
        program = dwarf.line_program_for_CU(cu)
        files = _file_names(program, cu)
        if program is not None:
            lines.extend(_rows(program, files))
        scopes.extend(_cu_scopes(dwarf, cu, files))
    lines.sort()
    return lines, scopes


def _file_names(program, cu):
    """A CU's file table as displayed paths, by the index the line table
    and DW_AT_decl_file/DW_AT_call_file use (0-based from DWARF 5 on,
    1-based before)."""
    if program is None:
        return {}
    dirs = [d.decode(errors="replace") for d in program["include_directory"]]
    comp = cu.get_top_DIE().attributes.get("DW_AT_comp_dir")
    comp_dir = comp.value.decode(errors="replace") if comp else ""
    base = 0 if cu["version"] >= 5 else 1
    names = {}
    for i, entry in enumerate(program["file_entry"]):
        name = entry.name.decode(errors="replace")
        d = entry.dir_index
        if cu["version"] >= 5:
            folder = dirs[d] if d < len(dirs) else ""
        else:
            folder = dirs[d - 1] if 0 < d <= len(dirs) else comp_dir
        path = os.path.join(comp_dir, folder, name)
        names[i + base] = _shown_path(os.path.normpath(path))
    return names


def _rows(program, files):
    """The line table's rows as (start, end, file, line); sequences of
    functions the linker dropped (starting at address 0) are left out."""
    rows = []
    prev = None
    for entry in program.get_entries():
        state = entry.state
        if state is None:
            continue
        if prev is not None and state.address > prev.address:
            rows.append((prev.address, state.address, files.get(prev.file, "??"), prev.line))
        prev = None if state.end_sequence else state
        if prev is not None and prev.address == 0:
            prev = None
    return rows


def _cu_scopes(dwarf, cu, files):
    """The code ranges of a CU's subprograms and inlined scopes, each with
    its chain of functions."""
    out = []
    ranges = dwarf.range_lists()    # None without .debug_ranges/.debug_rnglists

    def walk(die, chain):
        for child in die.iter_children():
            tag = child.tag
            if tag not in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine",
                           "DW_TAG_lexical_block"):
                continue
            here = chain
            if tag == "DW_TAG_inlined_subroutine":
                here = chain + [(_name(child), files.get(_attr(child, "DW_AT_call_file"), "??"),
                                 _attr(child, "DW_AT_call_line"))]
            elif tag == "DW_TAG_subprogram":
                here = chain + [(_name(child), None, None)]
            for low, high in _die_ranges(child, cu, ranges):
                if low:
                    out.append((low, high, here))
            walk(child, here)

    walk(cu.get_top_DIE(), [])
    # Innermost scopes win: sort by size so that the first match is the
    # smallest range holding the address.
    out.sort(key=lambda s: s[1] - s[0])
    return out


def _attr(die, name):
    a = die.attributes.get(name)
    return a.value if a else None


def _name(die):
    """A subprogram's or inlined scope's name (through its abstract origin
    or specification)."""
    for _ in range(4):
        a = die.attributes.get("DW_AT_name")
        if a:
            return a.value.decode(errors="replace")
        for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
            if ref in die.attributes:
                die = die.get_DIE_from_attribute(ref)
                break
        else:
            return "??"
    return "??"


def _die_ranges(die, cu, ranges):
    """The [low, high) code ranges of a DIE."""
    attrs = die.attributes
    if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
        low = attrs["DW_AT_low_pc"].value
        high = attrs["DW_AT_high_pc"]
        end = high.value if high.form == "DW_FORM_addr" else low + high.value
        return [(low, end)]
    if "DW_AT_ranges" in attrs and ranges is not None:
        try:
            base = cu.get_top_DIE().attributes.get("DW_AT_low_pc")
            base = base.value if base else 0
            found = []
            for r in ranges.get_range_list_at_offset(attrs["DW_AT_ranges"].value, cu=cu):
                if hasattr(r, "begin_offset"):
                    is_abs = getattr(r, "is_absolute", False)
                    b = r.begin_offset if is_abs else base + r.begin_offset
                    e = r.end_offset if is_abs else base + r.end_offset
                    found.append((b, e))
            return found
        except Exception:   # noqa: BLE001 -- a range form this pyelftools cannot read
            return []
    return []


# The kernel's report of a fault (kernel/fault_report.cpp), maybe after
# mpirun --tag-output's "[rank R] ".
_TAG = r"(\[(?:rank|cluster) \d+\] )?"
_KILLED = re.compile("(" + _TAG + r"tessera: .+?: )process (\S+) killed: ")
_BACKTRACE = re.compile("(" + _TAG + r"tessera: .+?: )backtrace:((?: 0x[0-9a-f]+)+)(?: \(ra (0x[0-9a-f]+)\))?$")


class FaultReports:
    """Adds places to the kernel's fault reports of one program's
    processes (mpirun's console filter): the backtrace line that follows
    the report becomes one line per frame, with its function, file and
    line (with --tag-output's "[rank R] " when the report has it). Lines
    of other processes, and every line when the program cannot be read,
    pass unchanged."""

    def __init__(self, program):
        self.program = program
        self.name = os.path.basename(program)
        if self.name.endswith(".elf"):
            self.name = self.name[:-len(".elf")]
        self._symbols = None
        self._unreadable = False
        self._ours = set()      # the threads ("tessera: WHO: ") whose last report was ours

    def rewrite(self, line):
        """The lines to print for console line `line`."""
        killed = _KILLED.match(line)
        if killed:
            (self._ours.add if killed.group(3) == self.name else self._ours.discard)(killed.group(1))
            return [line]
        trace = _BACKTRACE.match(line)
        if not trace or trace.group(1) not in self._ours or not self._load():
            return [line]
        pcs = [int(a, 16) for a in trace.group(3).split()]
        if trace.group(4):
            pcs = self._symbols.with_leaf_caller(pcs, int(trace.group(4), 16))
        tag = trace.group(2) or ""     # mpirun --tag-output's, on every line
        return [trace.group(1) + "backtrace:"] + [
            f"{tag}    #{i} {pc:#x} in {self._symbols.place(pc, call=i > 0)}" for i, pc in enumerate(pcs)]

    def _load(self):
        if self._symbols is None and not self._unreadable:
            try:
                self._symbols = Symbols(self.program)
            except (OSError, ValueError):
                self._unreadable = True
        return self._symbols is not None
