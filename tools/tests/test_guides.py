#!/usr/bin/python3
"""The guides of docs/guides/ are tested, so that what they tell a reader to
type still works and what they quote of the tree is still there.

A guide marks what the test acts on with an HTML comment (invisible on a
rendered page) on the line just before a fenced block:

  <!-- file: NAME -->         the block is a file the reader writes: it is
                              written to NAME in the guide's work folder
  <!-- run [OPTIONS] -->      the block is shell commands the reader types:
                              they run with bash -e -o pipefail in the work
                              folder; the block fails on a non-zero status
                              unless status=N says which one it ends with
  <!-- output [OPTIONS] -->   the block is what the last run block prints
                              (stdout and stderr together)
  <!-- from: PATH -->         the block is an excerpt of PATH (relative to
                              the repository): it must appear there verbatim

run OPTIONS: status=N (the status expected), platform=NAME (only when the
test runs for that platform, as a command that names it), timeout=S.
output OPTIONS: any-order (the lines may come in any order, as the lines
of different ranks do).

In an output block a line "..." stands for any lines (none included),
"..." inside a line for any text, and a number written with a tilde
before it ("~120 ms", which reads "about 120 ms") for any number (a time,
a count that varies); lines are otherwise matched whole, in order, against
lines of the output (which may have others between them).
In an excerpt a line "..." stands for lines left out: each piece between
must appear verbatim, in order.

Each guide's blocks run in document order in one fresh temporary folder,
with the repository's tools/ first on PATH and $TESSERA the repository,
so that a command reads as the guide tells the reader to set things up;
mpicc and mpirun take the platform from $TESSERA_PLATFORM, which CTest
sets. Classes: Parser (the format above, on small inline guides) and
Excerpts (every guide's excerpts and links) need no build; Guides runs each
guide's commands on $TESSERA_PLATFORM's build (tools/CMakeLists.txt
registers it for both platforms as tools_guides)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest
from dataclasses import dataclass, field

TESTS = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(TESTS)
REPO = os.path.dirname(TOOLS)
GUIDES = os.path.join(REPO, "docs", "guides")

MARKER = re.compile(r"^<!--\s*(file|run|output|from)\b:?\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```+)(\S*)\s*$")


class GuideError(Exception):
    """A guide is malformed, or what it says no longer holds."""


@dataclass
class Block:
    kind: str           # file, run, output, from
    arg: str            # file: NAME; from: PATH; run/output: ""
    options: dict       # run/output: {"status": "139", "any-order": True, ...}
    text: str           # the block's lines, each ending with "\n"
    line: int           # the fence's line in the guide, from 1
    lang: str = ""


def parse_options(kind, text):
    """{name: value or True} of a run or output marker's words."""
    allowed = {"run": {"status", "platform", "timeout"}, "output": {"any-order"}}[kind]
    options = {}
    for word in text.split():
        name, eq, value = word.partition("=")
        if name not in allowed:
            raise GuideError(f"unknown {kind} option '{word}' (known: {', '.join(sorted(allowed))})")
        options[name] = value if eq else True
    return options


def parse(text, where="guide"):
    """The marked blocks of a guide's markdown text, in order."""
    lines = text.splitlines(keepends=True)
    blocks, i = [], 0
    while i < len(lines):
        m = MARKER.match(lines[i].rstrip("\n"))
        if not m:
            i += 1
            continue
        kind, rest = m.group(1), m.group(2)
        fence = FENCE.match(lines[i + 1].rstrip("\n")) if i + 1 < len(lines) else None
        if not fence:
            raise GuideError(f"{where}:{i + 1}: a <!-- {kind} --> marker must come just before a fenced block")
        close = fence.group(1)
        end = i + 2
        while end < len(lines) and lines[end].rstrip("\n") != close:
            end += 1
        if end == len(lines):
            raise GuideError(f"{where}:{i + 2}: the block is never closed")
        arg, options = "", {}
        if kind in ("file", "from"):
            if not rest or " " in rest:
                raise GuideError(f"{where}:{i + 1}: <!-- {kind}: ... --> needs one path")
            arg = rest
        else:
            options = parse_options(kind, rest)
        blocks.append(Block(kind, arg, options, "".join(lines[i + 2:end]), i + 2, fence.group(2)))
        i = end + 1
    return blocks


def check_excerpt(excerpt, source):
    """None when excerpt (with "..." lines for what it leaves out) appears
    in source, else what is missing."""
    pieces, piece = [], []
    for line in excerpt.splitlines(keepends=True):
        if line.strip() == "...":
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(line)
    pieces.append("".join(piece))
    at = 0
    for p in pieces:
        if not p:
            continue
        found = source.find(p, at)
        if found < 0:
            return p
        at = found + len(p)
    return None


ABOUT = re.compile(r"~\d+(?:\.\d+)?")     # ~N: any number


def line_pattern(expected):
    """A regex that matches an output line as expected describes it."""
    parts = []
    for i, piece in enumerate(expected.split("...")):
        if i:
            parts.append(".*")
        at = 0
        for m in ABOUT.finditer(piece):
            parts.append(re.escape(piece[at:m.start()]))
            parts.append(r"-?\d+(?:\.\d+)?")
            at = m.end()
        parts.append(re.escape(piece[at:]))
    return re.compile("".join(parts) + r"\Z")


def check_output(expected, output, any_order=False):
    """None when output shows the expected block, else the first expected
    line not found (see the module's comment for the rules)."""
    got = [line.rstrip() for line in output.splitlines()]
    want = [line.rstrip() for line in expected.splitlines() if line.strip() != "..."]
    used, at = set(), 0
    for w in want:
        pat = line_pattern(w)
        if any_order:
            hit = next((k for k, g in enumerate(got) if k not in used and pat.match(g)), None)
            if hit is None:
                return w
            used.add(hit)
        else:
            hit = next((k for k in range(at, len(got)) if pat.match(got[k])), None)
            if hit is None:
                return w
            at = hit + 1
    return None


@dataclass
class Runner:
    """Runs a guide's blocks in `folder` for `platform`."""
    folder: str
    platform: str
    env: dict = field(default_factory=dict)
    ran: int = 0        # run blocks run (those of another platform are not)

    def environment(self):
        env = dict(os.environ)
        env["PATH"] = TOOLS + os.pathsep + env.get("PATH", "")
        env["TESSERA"] = REPO
        env["TESSERA_PLATFORM"] = self.platform
        env.update(self.env)
        return env

    def run(self, blocks, where="guide"):
        last = None     # (block, output) of the last run block, or None when skipped
        for b in blocks:
            at = f"{where}:{b.line}"
            if b.kind == "file":
                path = os.path.join(self.folder, b.arg)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(b.text)
            elif b.kind == "from":
                check_source(b, where)
            elif b.kind == "run":
                if b.options.get("platform", self.platform) != self.platform:
                    last = None
                    continue
                want = int(b.options.get("status", 0))
                timeout = float(b.options.get("timeout", 300))
                try:
                    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", b.text], cwd=self.folder,
                                       env=self.environment(), stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
                except subprocess.TimeoutExpired as e:
                    raise GuideError(f"{at}: still running after {timeout:g} s:\n{b.text}{e.output or ''}")
                self.ran += 1
                if p.returncode != want:
                    raise GuideError(f"{at}: exit status {p.returncode}, the guide expects {want}:\n"
                                     f"{b.text}--- its output:\n{p.stdout}")
                last = (b, p.stdout)
            elif b.kind == "output":
                if last is None:
                    if any(x.kind == "run" for x in blocks[:blocks.index(b)]):
                        continue    # its run block is for another platform
                    raise GuideError(f"{at}: an output block with no run block before it")
                missing = check_output(b.text, last[1], b.options.get("any-order", False))
                if missing is not None:
                    raise GuideError(f"{at}: the output of the block at line {last[0].line} has no line "
                                     f"like\n  {missing}\n--- the output:\n{last[1]}")


def check_source(block, where="guide"):
    """Raises GuideError when an excerpt is no longer in its file."""
    path = os.path.join(REPO, block.arg)
    if not os.path.isfile(path):
        raise GuideError(f"{where}:{block.line}: quotes {block.arg}, which does not exist")
    with open(path, encoding="utf-8") as f:
        missing = check_excerpt(block.text, f.read())
    if missing is not None:
        raise GuideError(f"{where}:{block.line}: no longer in {block.arg}:\n{missing}")


def guides():
    """(name, text) of every guide."""
    names = sorted(n for n in os.listdir(GUIDES) if n.endswith(".md"))
    out = []
    for n in names:
        with open(os.path.join(GUIDES, n), encoding="utf-8") as f:
            out.append((n, f.read()))
    return out


# ---- the format, on small inline guides (no build) -------------------------

SAMPLE = """\
# A guide

Write this:

<!-- file: hello.sh -->
```sh
echo "hello from $1"
```

<!-- run -->
```sh
bash hello.sh world
echo "took 12.5 ms"
```

<!-- output -->
```text
hello from world
took ~3 ms
```

This one fails on purpose:

<!-- run status=3 -->
```sh
exit 3
```

```sh
this block is not marked: never run
```
"""


def run_text(text, platform="qemu-riscv64"):
    with tempfile.TemporaryDirectory(prefix="guide-") as d:
        r = Runner(d, platform)
        r.run(parse(text))
        return r.ran


class Parser(unittest.TestCase):
    def test_blocks(self):
        blocks = parse(SAMPLE)
        self.assertEqual([(b.kind, b.arg) for b in blocks],
                         [("file", "hello.sh"), ("run", ""), ("output", ""), ("run", "")])
        self.assertEqual(blocks[0].text, 'echo "hello from $1"\n')
        self.assertEqual(blocks[2].options, {})
        self.assertEqual(blocks[3].options, {"status": "3"})
        self.assertEqual(blocks[1].line, 11)

    def test_sample_runs(self):
        self.assertEqual(run_text(SAMPLE), 2)

    def test_wrong_output_fails(self):
        with self.assertRaisesRegex(GuideError, "no line like\n  hello from moon"):
            run_text(SAMPLE.replace("hello from world", "hello from moon"))

    def test_numbers_only_where_marked(self):
        with self.assertRaisesRegex(GuideError, "took 3 ms"):
            run_text(SAMPLE.replace("took ~3 ms", "took 3 ms"))
        with self.assertRaisesRegex(GuideError, "hello from ~1"):
            run_text(SAMPLE.replace("hello from world\ntook", "hello from ~1\ntook"))

    def test_status(self):
        with self.assertRaisesRegex(GuideError, "exit status 3, the guide expects 0"):
            run_text(SAMPLE.replace("status=3", ""))
        with self.assertRaisesRegex(GuideError, "exit status 1, the guide expects 0"):
            run_text("<!-- run -->\n```sh\nfalse\necho not reached\n```\n")
        with self.assertRaisesRegex(GuideError, "exit status 1"):
            run_text("<!-- run -->\n```sh\nfalse | cat\n```\n")     # pipefail

    def test_platform(self):
        text = "<!-- run platform=linux64 -->\n```sh\nexit 9\n```\n<!-- output -->\n```text\nx\n```\n"
        self.assertEqual(run_text(text, "qemu-riscv64"), 0)
        with self.assertRaisesRegex(GuideError, "exit status 9"):
            run_text(text, "linux64")

    def test_environment(self):
        text = ("<!-- run -->\n```sh\necho \"$TESSERA_PLATFORM\"; command -v mpirun; echo \"$TESSERA\"\n```\n"
                "<!-- output -->\n```text\nlinux64\n" + os.path.join(TOOLS, "mpirun") + "\n" + REPO + "\n```\n")
        self.assertEqual(run_text(text, "linux64"), 1)

    def test_output_rules(self):
        out = "a 1\nb\nc 0x10 d\ne\n"
        self.assertIsNone(check_output("a 1\n...\ne\n", out))
        self.assertIsNone(check_output("c ... d\n", out))
        self.assertIsNone(check_output("a ~7\n", out))
        self.assertEqual(check_output("a 7\n", out), "a 7")
        self.assertEqual(check_output("c ~1 d\n", out), "c ~1 d")     # 0x10 is no ~1
        self.assertEqual(check_output("e\nb\n", out), "b")                 # order
        self.assertIsNone(check_output("e\nb\n", out, any_order=True))
        self.assertEqual(check_output("b\nb\n", out, any_order=True), "b")  # each line once
        self.assertEqual(check_output("c\n", out), "c")                    # whole lines
        self.assertEqual(check_output("a 2\n", out), "a 2")

    def test_excerpts(self):
        source = "one\ntwo\nthree\nfour\n"
        self.assertIsNone(check_excerpt("two\nthree\n", source))
        self.assertIsNone(check_excerpt("one\n...\nfour\n", source))
        self.assertEqual(check_excerpt("four\n...\none\n", source), "one\n")   # order
        self.assertEqual(check_excerpt("two\nfour\n", source), "two\nfour\n")

    def test_excerpt_of_the_tree(self):
        def one(text):
            check_source(parse(text)[0])
        one("<!-- from: tools/tests/test_guides.py -->\n```python\nclass GuideError(Exception):\n```\n")
        with self.assertRaisesRegex(GuideError, "no longer in"):
            one("<!-- from: tools/tests/test_guides.py -->\n```python\nclass GuideErrors(Exception):\n```\n")
        with self.assertRaisesRegex(GuideError, "does not exist"):
            one("<!-- from: no/such/file.c -->\n```c\nx\n```\n")

    def test_malformed(self):
        with self.assertRaisesRegex(GuideError, "just before a fenced block"):
            parse("<!-- run -->\n\n```sh\nls\n```\n")
        with self.assertRaisesRegex(GuideError, "never closed"):
            parse("<!-- run -->\n```sh\nls\n")
        with self.assertRaisesRegex(GuideError, "unknown run option 'stat=1'"):
            parse("<!-- run stat=1 -->\n```sh\nls\n```\n")
        with self.assertRaisesRegex(GuideError, "needs one path"):
            parse("<!-- file: -->\n```c\n```\n")
        with self.assertRaisesRegex(GuideError, "no run block before it"):
            run_text("<!-- output -->\n```text\nx\n```\n")

    def test_links_in_prose_only(self):
        text = "[a](x.md) `[b](y.md)`\n```cpp\nf([](int r) { return r; });\n```\n[c](z.md)\n"
        self.assertEqual(LINK.findall(prose(text)), ["x.md", "z.md"])

    def test_longer_fences(self):
        blocks = parse("<!-- file: a.md -->\n````md\n```sh\nls\n```\n````\n")
        self.assertEqual(blocks[0].text, "```sh\nls\n```\n")


# ---- the guides themselves ---------------------------------------------------

LINK = re.compile(r"\]\((?!https?:|#)([^)#\s]+)")


def prose(text):
    """text without its fenced blocks and inline code, where a "](" is
    C++ (a lambda), not a link."""
    out, fence = [], None
    for line in text.splitlines():
        m = FENCE.match(line) if fence is None else None
        if m:
            fence = m.group(1)
        elif fence is not None:
            if line == fence:
                fence = None
        else:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


class Excerpts(unittest.TestCase):
    """What every guide quotes of the tree is there; its links lead somewhere."""

    def test_guides_exist(self):
        self.assertGreaterEqual(len(guides()), 5)

    def test_excerpts(self):
        for name, text in guides():
            with self.subTest(guide=name):
                for b in parse(text, name):
                    if b.kind == "from":
                        check_source(b, name)

    def test_links(self):
        for name, text in guides():
            for target in LINK.findall(prose(text)):
                with self.subTest(guide=name, link=target):
                    self.assertTrue(os.path.exists(os.path.join(GUIDES, target)), target)


class Guides(unittest.TestCase):
    """Every guide's commands, on $TESSERA_PLATFORM's build."""
    PLATFORM = os.environ.get("TESSERA_PLATFORM") or "qemu-riscv64"


def _guide_test(name, text):
    def test(self):
        with tempfile.TemporaryDirectory(prefix="guide-") as d:
            Runner(d, self.PLATFORM).run(parse(text, name), name)
    return test


if os.path.isdir(GUIDES):
    for _name, _text in guides():
        if any(b.kind == "run" for b in parse(_text, _name)):
            setattr(Guides, "test_" + _name[:-3].replace("-", "_"), _guide_test(_name, _text))


if __name__ == "__main__":
    sys.exit(unittest.main())
