"""The ABI headers (include/tessera/) as the tools see them: integer
constants and struct layouts, read from the C headers themselves, so that
no tool keeps a second, hand-written copy of a layout or a constant.

A header is read the way a C compiler reads the small part of C the ABI
headers use, and nothing more:

  - object-like `#define NAME VALUE`, VALUE an integer constant expression:
    integer literals (with u/l suffixes), constants defined earlier,
    + - * / % << >> & | ^ and parentheses;
  - `struct TAG { ... };` definitions, one field per declaration, each of
    type uint8_t..uint64_t, int8_t..int64_t, `struct TAG` (defined earlier
    in the header) or a one-dimensional array of those or of char, sized by
    a constant expression.

Layouts are those of the LP64 psABIs of both platforms (RISC-V lp64d and
x86-64): little-endian, every field at the next multiple of its alignment
(its width; a struct's: its widest field's), a struct's size rounded up to
its alignment. Anything else (another type, a pointer, a bit-field, an
attribute, #pragma, #if, a function...) raises AbiError naming the header
and the line: the tools never guess a layout. #include <tessera/X.h> brings
in X.h's constants. tools/tests/test_mkimage.py checks every layout and
constant against what C compilers make of the same headers.

    load_header("tessera/image.h")         constants and struct layouts;
                                           the whole header must be understood
    load_header("tessera/syscall.h", layouts=False)
                                           its #define constants only; the C
                                           code around them is skipped (but a
                                           #define inside #if is an error)

A CStruct packs and unpacks by field name:
    MANIFEST = load_header("tessera/image.h").struct("ts_manifest")
    MANIFEST.pack(magic=..., ..., clusters=[{...}, ...], args=b"...")  # every field
    MANIFEST.unpack_from(data)["argc"]; MANIFEST.offsets["args"]; MANIFEST.format

Standard library only, so that unit tests need no toolchain.
"""
import ast
import os
import re
import struct
from collections import namedtuple
from dataclasses import dataclass

from tessera import REPO

INCLUDE = os.path.join(REPO, "include")

# Fixed-width integer types: C type -> (bytes, struct format code). Their
# alignment is their width.
SCALARS = {
    "uint8_t": (1, "B"), "uint16_t": (2, "H"), "uint32_t": (4, "I"), "uint64_t": (8, "Q"),
    "int8_t": (1, "b"), "int16_t": (2, "h"), "int32_t": (4, "i"), "int64_t": (8, "q"),
}
# Standard headers a header read with layouts may include (for the types above).
_STANDARD = {"stdint.h"}


class AbiError(Exception):
    """A header holds something the tools cannot read, or a value does not
    fit the field it is packed into."""


# --- lexing ------------------------------------------------------------------

Token = namedtuple("Token", "kind text line space")   # space: whitespace before it

_LEX = re.compile(r"""
      (?P<space>[ \t\f\v\r]+)
    | (?P<splice>\\\n)
    | (?P<newline>\n)
    | (?P<comment>/\*.*?(?:\*/|\Z)|//[^\n]*)
    | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    | (?P<ident>[A-Za-z_]\w*)
    | (?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
    | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\#\#
                |[-+*/%&|^~!=<>?:;,.()\[\]{}\#])
""", re.X | re.S)


def _logical_lines(text, source):
    """The header as logical lines (lists of Tokens), after the C compiler's
    first phases: lines spliced at a backslash-newline, comments replaced by
    a space (a block comment spanning lines does not end a directive)."""
    lines, current, line, pos, space = [], [], 1, 0, True
    while pos < len(text):
        m = _LEX.match(text, pos)
        if not m:
            raise AbiError(f"{source}:{line}: unexpected character {text[pos]!r}")
        kind, value = m.lastgroup, m.group()
        if kind == "comment" and value.startswith("/*") and not value.endswith("*/"):
            raise AbiError(f"{source}:{line}: unterminated comment")
        if kind == "newline":
            if current:
                lines.append(current)
            current, space = [], True
        elif kind in ("space", "splice", "comment"):
            space = True
        else:
            current.append(Token(kind, value, line, space))
            space = False
        line += value.count("\n")
        pos = m.end()
    if current:
        lines.append(current)
    return lines


# --- constant expressions ----------------------------------------------------

_INTEGER = re.compile(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)"
                      r"(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")
_OPERATORS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "(", ")"}
_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
}


def _integer_literal(token, source):
    """The value of a C integer literal token (decimal, octal or hex)."""
    m = _INTEGER.fullmatch(token.text)
    if not m:
        raise AbiError(f"{source}:{token.line}: '{token.text}' is not an integer literal")
    digits = m.group(1)
    if digits.startswith(("0x", "0X")):
        return int(digits, 16)
    return int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits)


def _c_div(a, b, line, source):
    if b == 0:
        raise AbiError(f"{source}:{line}: division by zero in a constant")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q     # C truncates toward zero


def _eval_node(node, line, source):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval_node(node.operand, line, source)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        a, b = _eval_node(node.left, line, source), _eval_node(node.right, line, source)
        if isinstance(node.op, ast.Div):
            return _c_div(a, b, line, source)
        if isinstance(node.op, ast.Mod):
            return a - _c_div(a, b, line, source) * b
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            if b < 0 or b >= 64:
                raise AbiError(f"{source}:{line}: shift by {b} in a constant")
            return a << b if isinstance(node.op, ast.LShift) else a >> b
        if type(node.op) in _BINARY:
            return _BINARY[type(node.op)](a, b)
    raise AbiError(f"{source}:{line}: not an integer constant expression")


def evaluate(tokens, constants, source, line, what):
    """The value of the integer constant expression `tokens` (on `line` of
    source); names must be in `constants`. what: what it is, for errors."""
    if not tokens:
        raise AbiError(f"{source}:{line}: {what}: empty expression")
    text = " ".join(t.text for t in tokens)
    parts = []
    for t in tokens:
        if t.kind == "number":
            parts.append(str(_integer_literal(t, source)))
        elif t.kind == "ident":
            if t.text not in constants:
                raise AbiError(f"{source}:{t.line}: {what}: '{t.text}' is not an integer "
                               f"constant defined earlier")
            parts.append(f"({constants[t.text]})")
        elif t.kind == "punct" and t.text in _OPERATORS:
            parts.append(t.text)
        else:
            raise AbiError(f"{source}:{t.line}: {what}: '{t.text}' has no place in a constant "
                           f"the tools read (integer literals, earlier constants, "
                           f"+ - * / % << >> & | ^ and parentheses)")
    try:
        tree = ast.parse(" ".join(parts), mode="eval")
    except SyntaxError:
        raise AbiError(f"{source}:{line}: {what}: '{text}' is not an integer constant "
                       f"expression") from None
    value = _eval_node(tree.body, line, source)
    if not -(1 << 63) <= value < 1 << 64:
        raise AbiError(f"{source}:{line}: {what}: {value} does not fit 64 bits")
    return value


# --- layouts -----------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    """One field of a struct. count: elements of an array, None for a single
    value; size: bytes of the whole field; struct: the CStruct of a
    `struct TAG` field."""
    name: str
    ctype: str
    count: object
    offset: int
    size: int
    align: int
    struct: object = None

    @property
    def code(self):
        """Its part of the struct format: one code per int, bytes for char
        arrays and structs."""
        if self.struct is not None:
            return f"{self.size}s"
        if self.ctype == "char":
            return f"{self.count}s"
        return f"{self.count or ''}{SCALARS[self.ctype][1]}"


class CStruct:
    """A struct of an ABI header: size, alignment, fields with their offsets
    (offsets: name -> offset) and `format`, a little-endian struct.Struct
    with C's padding that packs it positionally. pack() and unpack_from()
    go by field name."""

    def __init__(self, name, fields, source):
        self.name = name
        self.fields = tuple(fields)
        self.source = source
        self.align = max(f.align for f in self.fields)
        end = self.fields[-1].offset + self.fields[-1].size
        self.size = _align_up(end, self.align)
        self.offsets = {f.name: f.offset for f in self.fields}
        self._fields = {f.name: f for f in self.fields}
        parts, at = [], 0
        for f in self.fields:
            if f.offset > at:
                parts.append(f"{f.offset - at}x")
            parts.append(f.code)
            at = f.offset + f.size
        if self.size > at:
            parts.append(f"{self.size - at}x")
        self.format = struct.Struct("<" + "".join(parts))
        assert self.format.size == self.size, (self.name, self.format.format)

    def __repr__(self):
        return f"<struct {self.name}: {self.size} bytes, {self.source}>"

    def field(self, name):
        """The Field called name; AbiError if the struct has none."""
        try:
            return self._fields[name]
        except KeyError:
            raise AbiError(f"struct {self.name} ({self.source}) has no field '{name}'") from None

    def pack(self, **values):
        """The struct as bytes, every field given by name: an int, a list of
        ints (an array of ints), bytes (a char array, NUL-padded), a dict or
        bytes (a struct), a list of those (an array of structs). Arrays may
        be given shorter than they are: the rest is zeros. A missing or
        unknown field, or a value that does not fit, raises AbiError."""
        for name in values:
            self.field(name)
        missing = [f.name for f in self.fields if f.name not in values]
        if missing:
            raise AbiError(f"struct {self.name}: no value for field '{missing[0]}' "
                           f"(pack needs every field of {self.source})")
        args = []
        for f in self.fields:
            args.extend(self._encode(f, values[f.name]))
        return self.format.pack(*args)

    def unpack_from(self, buf, offset=0):
        """The struct at buf[offset:] as a dict, field name -> value (ints,
        lists for arrays, bytes for char arrays, dicts for structs)."""
        if len(buf) - offset < self.size:
            raise AbiError(f"struct {self.name} needs {self.size} bytes, "
                           f"got {max(len(buf) - offset, 0)}")
        values = iter(self.format.unpack_from(buf, offset))
        return {f.name: self._decode(f, values) for f in self.fields}

    def unpack_field(self, buf, name, offset=0):
        """One field of the struct at buf[offset:], as unpack_from gives it;
        buf needs to hold only that field."""
        f = self.field(name)
        at = offset + f.offset
        if len(buf) - at < f.size:
            raise AbiError(f"{self.name}.{name} needs {f.size} bytes at {at}, "
                           f"got {max(len(buf) - at, 0)}")
        return self._decode(f, iter(struct.unpack_from("<" + f.code, buf, at)))

    def _encode(self, f, value):
        what = f"{self.name}.{f.name}"
        if f.struct is not None:
            items = value if f.count else [value]
            if f.count and (not isinstance(items, (list, tuple)) or len(items) > f.count):
                raise AbiError(f"{what}: want a list of at most {f.count} structs")
            blob = b"".join(_struct_bytes(f.struct, item, what) for item in items)
            return [blob.ljust(f.size, b"\0")]
        if f.ctype == "char":
            if not isinstance(value, (bytes, bytearray)) or len(value) > f.count:
                raise AbiError(f"{what}: want at most {f.count} bytes, got {value!r:.60}")
            return [bytes(value)]
        width, code = SCALARS[f.ctype]
        items = value if f.count else [value]
        if f.count and (not isinstance(items, (list, tuple)) or len(items) > f.count):
            raise AbiError(f"{what}: want a list of at most {f.count} integers")
        lo, hi = (-(1 << (8 * width - 1)), 1 << (8 * width - 1)) if code.islower() \
            else (0, 1 << (8 * width))
        for v in items:
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v < hi:
                raise AbiError(f"{what}: {v!r} does not fit a {f.ctype}")
        return list(items) + [0] * ((f.count or 1) - len(items))

    @staticmethod
    def _decode(f, values):
        if f.struct is not None:
            raw = next(values)
            items = [f.struct.unpack_from(raw, i * f.struct.size) for i in range(f.count or 1)]
            return items if f.count else items[0]
        if f.ctype == "char" or not f.count:
            return next(values)
        return [next(values) for _ in range(f.count)]


def _struct_bytes(cstruct, item, what):
    if isinstance(item, dict):
        return cstruct.pack(**item)
    if isinstance(item, (bytes, bytearray)) and len(item) == cstruct.size:
        return bytes(item)
    raise AbiError(f"{what}: want a dict of struct {cstruct.name}'s fields "
                   f"or {cstruct.size} bytes")


def _align_up(n, align):
    return (n + align - 1) // align * align


# --- headers -----------------------------------------------------------------

class Header:
    """What the tools read from one header: constants (name -> int) and
    structs (tag -> CStruct; empty when read without layouts)."""

    def __init__(self, source, constants, structs):
        self.source = source
        self.constants = constants
        self.structs = structs

    def __repr__(self):
        return f"<header {self.source}>"

    def constant(self, name):
        """The value of an integer #define; AbiError if there is none."""
        try:
            return self.constants[name]
        except KeyError:
            raise AbiError(f"{self.source} defines no integer constant {name}") from None

    def struct(self, tag):
        """The layout of struct tag; AbiError if the header defines none."""
        try:
            return self.structs[tag]
        except KeyError:
            raise AbiError(f"{self.source} defines no struct {tag} the tools read "
                           f"(read it with layouts=True)") from None


class _Parser:
    """Reads one header: directives line by line, then (with layouts) the
    struct definitions in the remaining code."""

    def __init__(self, source, include_dir, layouts, seen):
        self.source = source
        self.include_dir = include_dir
        self.layouts = layouts
        self.seen = seen                 # headers being read (include cycles)
        self.constants = {}
        self.structs = {}
        self.code = []                   # tokens outside directives
        self.conditions = []             # open #if...: "guard" or "if"

    def fail(self, line, message):
        raise AbiError(f"{self.source}:{line}: {message}")

    def parse(self, text):
        lines = _logical_lines(text, self.source)
        for i, tokens in enumerate(lines):
            if tokens[0].text == "#":
                following = lines[i + 1] if i + 1 < len(lines) else []
                self.directive(tokens, following)
            else:
                self.code.extend(tokens)
        if self.conditions:
            raise AbiError(f"{self.source}: #if without #endif")
        if self.layouts:
            self.definitions()
        return Header(self.source, self.constants, self.structs)

    # directives

    def directive(self, tokens, following):
        if len(tokens) == 1:
            return                                        # the null directive
        name, args, line = tokens[1].text, tokens[2:], tokens[0].line
        if name == "define":
            self.define(args, line)
        elif name == "undef":
            if len(args) != 1 or args[0].kind != "ident":
                self.fail(line, "#undef takes one name")
            self.unconditional(line, f"#undef {args[0].text}")
            self.constants.pop(args[0].text, None)
        elif name == "include":
            self.include(args, line)
        elif name in ("ifndef", "ifdef", "if", "elif", "else", "endif"):
            self.conditional(name, args, following, line)
        elif name == "pragma" and [t.text for t in args] == ["once"]:
            pass
        else:
            self.fail(line, f"#{name} {' '.join(t.text for t in args)}: a directive the tools "
                            f"do not read (it might change what a compiler sees)")

    def conditional(self, name, args, following, line):
        if name == "ifndef" and len(args) == 1 and [t.text for t in following] \
                == ["#", "define", args[0].text]:
            self.conditions.append("guard")                # the include guard
            return
        if name == "endif":
            if not self.conditions:
                self.fail(line, "#endif without #if")
            self.conditions.pop()
            return
        if self.layouts:
            self.fail(line, f"#{name}: conditional compilation in a header whose layouts the "
                            f"tools read (they cannot tell which branch a compiler takes)")
        if name in ("ifndef", "ifdef", "if"):
            self.conditions.append("if")
        elif not self.conditions:
            self.fail(line, f"#{name} without #if")
        else:
            self.conditions[-1] = "if"                    # an include guard with an #else

    def unconditional(self, line, what):
        """Refuse what would apply only in some branch of an #if."""
        if "if" in self.conditions:
            self.fail(line, f"{what} inside #if: the tools cannot tell whether it applies")

    def define(self, args, line):
        if not args or args[0].kind != "ident":
            self.fail(line, "#define without a name")
        name, value = args[0].text, args[1:]
        if value and value[0].text == "(" and not value[0].space:
            return          # a function-like macro: no constant (using one is an error)
        self.unconditional(line, f"#define {name}")
        if not value:
            return                                        # e.g. the include guard
        number = evaluate(value, self.constants, self.source, line, f"#define {name}")
        if self.constants.get(name, number) != number:
            self.fail(line, f"#define {name} redefines it as {number} "
                            f"(it was {self.constants[name]})")
        self.constants[name] = number

    def include(self, args, line):
        text = "".join(t.text for t in args)
        if not (text.startswith("<") and text.endswith(">")):
            self.fail(line, f"#include {text}: the tools follow only <tessera/...> and "
                            f"<{'>, <'.join(sorted(_STANDARD))}>")
        name = text[1:-1]
        if name.startswith("tessera/"):
            self.unconditional(line, f"#include {text}")
            other = _read(os.path.join(self.include_dir, name), self.include_dir, False,
                          self.seen)
            for key, value in other.constants.items():
                if self.constants.get(key, value) != value:
                    self.fail(line, f"#include {text}: {key} is {value} there, "
                                    f"{self.constants[key]} here")
                self.constants[key] = value
        elif self.layouts and name not in _STANDARD:
            self.fail(line, f"#include {text}: a header the tools do not read (what it "
                            f"declares could change a layout)")

    # struct definitions

    def definitions(self):
        """Every token outside directives must belong to `struct TAG {...};`."""
        tokens, i = self.code, 0
        while i < len(tokens):
            t = tokens[i]
            if t.text != "struct":
                self.fail(t.line, f"unsupported construct at '{t.text}': in a header whose "
                                  f"layouts the tools read, only #define constants and struct "
                                  f"definitions may appear")
            i = self.definition(tokens, i)

    def definition(self, tokens, i):
        """Parse `struct TAG { fields } ;` from tokens[i]; returns the index after it."""
        start = tokens[i]
        tag = tokens[i + 1] if i + 1 < len(tokens) else None
        if tag is None or tag.kind != "ident":
            self.fail(start.line, "'struct' without a tag")
        if i + 2 >= len(tokens) or tokens[i + 2].text != "{":
            self.fail(tag.line, f"struct {tag.text}: only definitions (struct {tag.text} "
                                f"{{ ... }};) may appear here")
        if tag.text in self.structs:
            self.fail(tag.line, f"struct {tag.text} is defined twice")
        i += 3
        fields, offset = [], 0
        while True:
            if i >= len(tokens):
                self.fail(start.line, f"struct {tag.text}: no closing '}}'")
            if tokens[i].text == "}":
                break
            j = i
            while j < len(tokens) and tokens[j].text not in (";", "}", "{"):
                j += 1
            if j >= len(tokens) or tokens[j].text != ";":
                self.fail(tokens[i].line, f"struct {tag.text}: a field declaration without ';' "
                                          f"(nested definitions are not read)")
            field = self.field(tag.text, tokens[i:j], offset)
            if any(f.name == field.name for f in fields):
                self.fail(tokens[i].line, f"struct {tag.text}: field '{field.name}' twice")
            fields.append(field)
            offset = field.offset + field.size
            i = j + 1
        close = tokens[i]
        if i + 1 >= len(tokens) or tokens[i + 1].text != ";":
            after = tokens[i + 1].text if i + 1 < len(tokens) else "the end"
            self.fail(close.line, f"struct {tag.text}: '{after}' after its '}}' (only ';' may "
                                  f"follow: no declarators or attributes)")
        if not fields:
            self.fail(tag.line, f"struct {tag.text} has no fields")
        self.structs[tag.text] = CStruct(tag.text, fields, self.source)
        return i + 2

    def field(self, tag, decl, offset):
        """The Field of one declaration `TYPE NAME;` or `TYPE NAME[N];`."""
        line = decl[0].line
        text = " ".join(t.text for t in decl)
        bracket = next((k for k, t in enumerate(decl) if t.text == "["), len(decl))
        name_at = bracket - 1
        if decl[0].text == "struct" and len(decl) > 1:
            type_len = 2
        elif decl[0].text in SCALARS or decl[0].text == "char":
            type_len = 1
        else:
            ctype = " ".join(t.text for t in decl[:max(name_at, 1)])
            self.fail(line, f"struct {tag}: '{text};' has type '{ctype}', which the tools do "
                            f"not read (they read {', '.join(SCALARS)}, char arrays and "
                            f"structs defined earlier)")
        if name_at != type_len or decl[name_at].kind != "ident":
            self.fail(line, f"struct {tag}: cannot read '{text};' (one field per declaration, "
                            f"of a type the tools read: no pointers, qualifiers, bit-fields "
                            f"or attributes)")
        name = decl[name_at].text
        count = None
        if bracket < len(decl):
            if decl[-1].text != "]" or any(t.text in ("[", "]") for t in decl[bracket + 1:-1]):
                self.fail(line, f"struct {tag}: cannot read '{text};' (arrays have one "
                                f"dimension)")
            count = evaluate(decl[bracket + 1:-1], self.constants, self.source, line,
                             f"struct {tag}: {name}'s length")
            if count <= 0:
                self.fail(line, f"struct {tag}: {name} has {count} elements")
        nested = None
        if type_len == 2:
            ctype = f"struct {decl[1].text}"
            nested = self.structs.get(decl[1].text)
            if nested is None:
                self.fail(line, f"struct {tag}: field '{name}' is a {ctype}, which this "
                                f"header does not define before it")
            size, align = nested.size, nested.align
        elif decl[0].text == "char":
            ctype = "char"
            if count is None:
                self.fail(line, f"struct {tag}: char field '{name}' must be an array "
                                f"(char {name}[N])")
            size = align = 1
        else:
            ctype = decl[0].text
            size = align = SCALARS[ctype][0]
        at = _align_up(offset, align)
        return Field(name, ctype, count, at, size * (count or 1), align, nested)


def _display(path):
    """path relative to the repository when inside it (for messages)."""
    rel = os.path.relpath(path, REPO)
    return path if rel.startswith("..") else rel


def parse_header(text, source, include_dir=INCLUDE, layouts=True):
    """Read a header's text; source names it in errors. layouts: read its
    struct definitions too (then every line must be understood); else only
    its #define constants. Returns a Header; raises AbiError."""
    return _Parser(source, include_dir, layouts, {source}).parse(text)


def _read(path, include_dir, layouts, seen):
    source = _display(path)
    if source in seen:
        raise AbiError(f"{source} includes itself")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise AbiError(f"cannot read ABI header {source}: {e.strerror}") from None
    return _Parser(source, include_dir, layouts, seen | {source}).parse(text)


_CACHE = {}


def load_header(name, include_dir=INCLUDE, layouts=True):
    """The Header of include_dir/name (e.g. "tessera/image.h"), read once
    per process. layouts as parse_header."""
    path = os.path.join(include_dir, name)
    key = (os.path.abspath(path), layouts)
    if key not in _CACHE:
        _CACHE[key] = _read(path, include_dir, layouts, frozenset())
    return _CACHE[key]
