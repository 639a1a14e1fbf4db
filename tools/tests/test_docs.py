#!/usr/bin/python3
"""The documentation leads somewhere, and says what the tools do.

Checks, on the repository (or on the tree --root names):

- every relative link of every Markdown file resolves: the file or folder
  exists and, for a link into a Markdown page with a #anchor, the page has
  a heading of that anchor (GitHub's rule: lower case, punctuation
  dropped, spaces to hyphens);
- every citation of a page in the tree, in code, comments, help texts or
  pages, names a page that exists and, when it quotes a section, a heading
  of that page: `docs/PAGE.md, "Heading"` (the comma may be left out) and
  the README's own, `README, "Heading"` or `README's "Heading"`. A heading
  "Name: more words" may be cited as "Name". A citation may run over the
  lines of a comment;
- nothing cites the team's design notes, which users do not have, by
  their file name or their section numbers: the design is in docs/;
- docs/tools.md lists exactly the options that each command's --help
  lists (mpirun and mpiexec under "mpirun's options", mpicc and mpicxx
  under "mpicc's options", one list item per option, each starting with
  its backquoted forms).

Classes: Tree checks the repository; Probes builds small broken trees
and help texts in a temporary folder and sees each check fail on them.
`test_docs.py --root DIR` prints what is wrong with DIR and exits 1 if
anything is. This file's own strings are not checked: they are the
probes' broken trees."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(TESTS))

SKIP_DIRS = {".git", "__pycache__"}
SKIP_TOP = {"out"}          # the build folders
SELF = os.path.relpath(os.path.abspath(__file__), REPO)
MAX_BYTES = 1 << 20         # larger files are data, not text we write

FENCE = re.compile(r"^\s*(```+|~~~+)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# A gap between a page and the heading it cites: a comma, blanks (at least
# one, so that two string literals in a row are no citation), and the
# leaders of a comment that goes on on the next line.
GAP = r"[,;]?\s+(?:(?://+|/?\*+|#)\s+)*"
DOC_CITE = re.compile(r"(?<![\w/.-])(?:\.\./)*(docs/[\w./-]+\.md)"
                      r"(?:" + GAP + r"\"([^\"]{1,120})\")?")
README_CITE = re.compile(r"(?<![\w/.-])README(?:\.md)?(?:'s)?" + GAP + r"\"([^\"]{1,120})\"")
DESIGN_CITE = re.compile(r"\bDESIGN(?:\.md\b|(?:\s|//+|/?\*+|#)+sections?\b)")
COMMENT_BREAK = re.compile(r"\s*\n\s*(?:///?|/?\*+|#)?\s*")

TOOLS = {  # the heading of docs/tools.md that lists a tool's options
    "mpirun": "mpirun's options", "mpiexec": "mpirun's options",
    "mpicc": "mpicc's options", "mpicxx": "mpicc's options",
}


# ---- the files of a tree ------------------------------------------------------

def tree_files(root):
    """Every file of the tree under root, as paths relative to it, but the
    build folders', git's and those too large to be text."""
    for top, dirs, files in os.walk(root):
        rel_top = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                         and not (rel_top == "." and d in SKIP_TOP))
        for name in sorted(files):
            path = os.path.join(top, name)
            if os.path.isfile(path) and not os.path.islink(path) \
                    and os.path.getsize(path) <= MAX_BYTES:
                yield os.path.relpath(path, root)


def read_text(path):
    """The file's text, or None when it is missing or not UTF-8 text."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        return None
    return None if "\0" in text else text


def texts(root):
    """(relative path, text) of every text file of the tree but this one,
    whose strings are the probes' broken trees."""
    for rel in tree_files(root):
        if rel == SELF:
            continue
        text = read_text(os.path.join(root, rel))
        if text is not None:
            yield rel, text


# ---- Markdown -----------------------------------------------------------------

def outside_fences(text):
    """The lines of a Markdown text that are not in fenced blocks, with
    their numbers (from 1)."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None:
            if m and line.strip() == m.group(1) and m.group(1)[0] == fence[0] \
                    and len(m.group(1)) >= len(fence):
                fence = None
        else:
            yield number, line


def headings(text):
    """The text of every heading of a Markdown page, inline code marks
    dropped."""
    out = []
    for _, line in outside_fences(text):
        m = HEADING.match(line)
        if m:
            out.append(m.group(2).replace("`", ""))
    return out


def slug(heading):
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(text):
    """Every anchor of a page; a repeated heading gets -1, -2, ..."""
    seen, out = {}, set()
    for h in headings(text):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(text):
    """(line number, target) of every link in a page's prose (not in code)."""
    for number, line in outside_fences(text):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            yield number, target


def link_problems(root):
    """What is wrong with the relative links of the tree's Markdown pages."""
    problems = []
    for rel, text in texts(root):
        if not rel.endswith(".md"):
            continue
        for number, target in links(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue        # https:, mailto:, ...
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(root, os.path.dirname(rel), path)) if path \
                else os.path.join(root, rel)
            where = f"{rel}:{number}: link {target}"
            if not os.path.exists(dest):
                problems.append(f"{where}: no such file")
            elif anchor and dest.endswith(".md") and os.path.isfile(dest) \
                    and anchor not in anchors(read_text(dest) or ""):
                problems.append(f"{where}: no heading of that anchor in "
                                f"{os.path.relpath(dest, root)}")
    return problems


# ---- citations ----------------------------------------------------------------

def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def cites_heading(section, page_headings):
    """Does a cited section name one of the headings (whole, or the part
    before a colon)?"""
    section = COMMENT_BREAK.sub(" ", section).strip()
    return any(h == section or h.startswith(section + ":") for h in page_headings)


def citation_problems(root):
    """What is wrong with the tree's citations of its pages."""
    problems, cache = [], {}

    def page(rel_page):
        if rel_page not in cache:
            path = os.path.join(root, rel_page)
            cache[rel_page] = headings(read_text(path) or "") if os.path.isfile(path) else None
        return cache[rel_page]

    def check(rel, text, m, rel_page, section):
        where = f"{rel}:{line_of(text, m.start())}: {rel_page}"
        found = page(rel_page)
        if found is None:
            problems.append(f"{where}: no such page")
        elif section is not None and not cites_heading(section, found):
            problems.append(f"{where}, \"{COMMENT_BREAK.sub(' ', section).strip()}\": "
                            f"no such heading")

    for rel, text in texts(root):
        for m in DOC_CITE.finditer(text):
            check(rel, text, m, m.group(1), m.group(2))
        for m in README_CITE.finditer(text):
            check(rel, text, m, "README.md", m.group(1))
    return problems


def design_problems(root):
    """Every place that cites the design notes users do not have."""
    return [f"{rel}:{line_of(text, m.start())}: cites the design notes "
            f"('{m.group(0)}'); cite a page of docs/ instead"
            for rel, text in texts(root) for m in DESIGN_CITE.finditer(text)]


# ---- the tools' options -------------------------------------------------------

def help_options(text):
    """The options a --help text lists: the forms of each line that starts
    with two blanks and a '-' ("  -np N, -n N, --np N  ..."), each form's
    first word."""
    options = set()
    for line in text.splitlines():
        m = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line)
        if m:
            options.update(form.split()[0] for form in m.group(1).split(", "))
    return options


def page_options(text, heading):
    """The options docs/tools.md lists under heading: the backquoted forms
    that start each list item ("- `-np N`, `-n N`: ..."), each form's first
    word. None when the page has no such heading."""
    options, inside = set(), None
    for _, line in outside_fences(text):
        m = HEADING.match(line)
        if m:
            if inside is not None:
                break
            if m.group(2) == heading:
                inside = True
            continue
        if inside:
            item = re.match(r"^- ((?:`[^`]+`(?:, | or )?)+)", line)
            if item:
                options.update(f.split()[0] for f in re.findall(r"`([^`]+)`", item.group(1))
                               if f.startswith("-"))
    return options if inside else None


def tool_help(root, tool):
    """What `tools/TOOL --help` prints."""
    p = subprocess.run([os.path.join(root, "tools", tool), "--help"], capture_output=True,
                       text=True, timeout=60, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return p.stdout + p.stderr


def option_problems(page_text, tool, help_text):
    """How the page and a tool's --help disagree about its options."""
    heading = TOOLS[tool]
    documented = page_options(page_text, heading)
    if documented is None:
        return [f"docs/tools.md: no heading \"{heading}\" for {tool}'s options"]
    listed = help_options(help_text)
    if not listed:
        return [f"{tool} --help lists no option"]
    return ([f"docs/tools.md: {tool} {o} (in --help) is not under \"{heading}\""
             for o in sorted(listed - documented)]
            + [f"docs/tools.md: {o} under \"{heading}\" is not in {tool} --help"
               for o in sorted(documented - listed)])


def tools_problems(root):
    page = read_text(os.path.join(root, "docs", "tools.md"))
    if page is None:
        return ["docs/tools.md: missing"]
    return [p for tool in TOOLS for p in option_problems(page, tool, tool_help(root, tool))]


def problems(root, with_tools=True):
    return (link_problems(root) + citation_problems(root) + design_problems(root)
            + (tools_problems(root) if with_tools else []))


# ---- tests ------------------------------------------------------------------------

class Tree(unittest.TestCase):
    """The repository itself."""

    def test_links(self):
        self.assertEqual(link_problems(REPO), [])

    def test_citations(self):
        self.assertEqual(citation_problems(REPO), [])

    def test_no_design_notes(self):
        self.assertEqual(design_problems(REPO), [])

    def test_tools_page_matches_help(self):
        self.assertEqual(tools_problems(REPO), [])

    def test_readme_is_a_front_door(self):
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            self.assertLessEqual(len(f.read().splitlines()), 200)


GOOD_TREE = {
    "README.md": "# T\n\n## Two commands\n\n"
                 "See [a](docs/a.md#the-layers-who-uses-whom), [b](docs/b.md),\n"
                 "[guides](docs/guides/) and [top](#two-commands).\n\n"
                 "```\n[not a link](nowhere.md)\n```\n",
    "docs/a.md": "# A\n\n## The layers: who uses whom\n\n## Seeing `inside`\n\n"
                 "[back](../README.md#two-commands), [b](b.md#b-again).\n",
    "docs/b.md": "# B\n\n## B again\n",
    "docs/guides/g.md": "# G\n\n[up](../a.md#seeing-inside)\n",
    "src/x.c": "// The core (docs/a.md, \"The layers\"), the way in (README,\n"
               "// \"Two commands\") and the README's \"Two commands\". Also\n"
               "// (docs/a.md, \"Seeing\n// inside\") and docs/b.md alone.\n",
    "src/y.py": "# See docs/a.md \"The layers\".\n",
}


class Probes(unittest.TestCase):
    """Each check, on small trees it must pass or fail."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="docs-probe-")
        self.addCleanup(shutil.rmtree, self.root)
        self.write(GOOD_TREE)

    def write(self, files):
        for rel, text in files.items():
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def found(self):
        return problems(self.root, with_tools=False)

    def test_good_tree_passes(self):
        self.assertEqual(self.found(), [])

    def test_missing_page(self):
        self.write({"docs/b.md": "# B\n\nSee [c](c.md).\n\n## B again\n"})
        self.assertEqual(self.found(), ["docs/b.md:3: link c.md: no such file"])

    def test_missing_anchor(self):
        self.write({"docs/guides/g.md": "# G\n\n[up](../a.md#seeing-outside)\n"})
        self.assertEqual(self.found(), ["docs/guides/g.md:3: link ../a.md#seeing-outside: "
                                        "no heading of that anchor in docs/a.md"])

    def test_repeated_heading_anchor(self):
        self.write({"docs/b.md": "# B\n\n## B again\n\n## B again\n\n"
                                 "[2](#b-again-1) [3](#b-again-2)\n"})
        self.assertEqual(self.found(), ["docs/b.md:7: link #b-again-2: no heading of that "
                                        "anchor in docs/b.md"])

    def test_cited_page_missing(self):
        self.write({"src/z.h": "/* Why (docs/" + "nosuch.md, \"The layers\"). */\n"})
        self.assertEqual(self.found(), ["src/z.h:1: docs/nosuch.md: no such page"])

    def test_cited_heading_missing(self):
        self.write({"src/z.h": "// Why (docs/a.md, \"The\n// tiers\").\n"})
        self.assertEqual(self.found(), ["src/z.h:1: docs/a.md, \"The tiers\": no such heading"])

    def test_heading_prefix_must_end_at_colon(self):
        self.write({"src/z.h": "// Why (docs/a.md, \"The lay\").\n"})
        self.assertEqual(self.found(), ["src/z.h:1: docs/a.md, \"The lay\": no such heading"])

    def test_readme_section_missing(self):
        self.write({"Makefile": "# the demo (README \"" + "Tracing\")\n"})
        self.assertEqual(self.found(), ["Makefile:1: README.md, \"Tracing\": no such heading"])

    def test_design_notes_cited(self):
        self.write({"src/z.h": "// Why (DESIGN " + "section 3).\n",
                    "src/v.h": "/// Why (DESIGN\n/// " + "sections 2 and 4).\n",
                    "src/w.py": "# see DESIGN" + ".md\n"})
        found = self.found()
        self.assertEqual(len(found), 3, found)
        self.assertTrue(all("cites the design notes" in p for p in found), found)

    def test_build_folders_skipped(self):
        self.write({"out/x/CMakeCache.md": "[x](nowhere.md)\n"})
        self.assertEqual(self.found(), [])

    def test_broken_link_in_a_copy_of_the_docs(self):
        """The repository's own README and docs pass, and fail once one
        link is broken."""
        shutil.rmtree(self.root)
        shutil.copytree(REPO, self.root, symlinks=True,
                        ignore=lambda top, names: [n for n in names if n in SKIP_DIRS or (
                            os.path.samefile(top, REPO) and n in SKIP_TOP)])
        self.assertEqual(link_problems(self.root), [])
        path = os.path.join(self.root, "docs", "tools.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        broken = text.replace("(debugging.md#tracing)", "(debugging.md#tracing-a-job)", 1)
        self.assertNotEqual(broken, text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(broken)
        found = link_problems(self.root)
        self.assertEqual(len(found), 1, found)
        self.assertIn("debugging.md#tracing-a-job: no heading of that anchor", found[0])


HELP = """usage: tool [-np N] ...

  -np N, -n N, --np N
                     processes
  --map-by POLICY    where
  -S, -E             stop early
  -h, --help         this text
mpiexec is this same program: mpiexec -n 4 PROGRAM.
"""

PAGE = """# Tools

### mpirun's options

- `-np N`, `-n N`, `--np N`: processes.
- `--map-by POLICY`: where; not `--not-an-item` here.
- `-S`, `-E`: stop early.
- `-h`, `--help`: this text.

### mpicc's options

- `-c`: compile.
"""


class Options(unittest.TestCase):
    """The comparison of docs/tools.md with a --help text."""

    def test_help_parsed(self):
        self.assertEqual(help_options(HELP), {"-np", "-n", "--np", "--map-by", "-S", "-E",
                                              "-h", "--help"})

    def test_page_parsed(self):
        self.assertEqual(page_options(PAGE, "mpirun's options"),
                         {"-np", "-n", "--np", "--map-by", "-S", "-E", "-h", "--help"})
        self.assertEqual(page_options(PAGE, "mpicc's options"), {"-c"})
        self.assertIsNone(page_options(PAGE, "mpicxx's options"))

    def test_agree(self):
        self.assertEqual(option_problems(PAGE, "mpirun", HELP), [])

    def test_option_missing_from_page(self):
        self.assertEqual(option_problems(PAGE.replace("- `-S`, `-E`: stop early.\n", ""),
                                         "mpiexec", HELP),
                         [f"docs/tools.md: mpiexec {o} (in --help) is not under "
                          f"\"mpirun's options\"" for o in ("-E", "-S")])

    def test_option_missing_from_help(self):
        self.assertEqual(option_problems(PAGE, "mpirun", HELP.replace("  -S, -E ", "  -S     ")),
                         ["docs/tools.md: -E under \"mpirun's options\" is not in mpirun --help"])

    def test_no_heading(self):
        self.assertEqual(option_problems(PAGE, "mpicc", "  -c   compile\n"), [])
        self.assertEqual(option_problems("# Tools\n", "mpicc", "  -c   compile\n"),
                         ["docs/tools.md: no heading \"mpicc's options\" for mpicc's options"])


def main(argv):
    if len(argv) == 3 and argv[1] == "--root":
        found = problems(os.path.abspath(argv[2]))
        for p in found:
            print(p)
        return 1 if found else 0
    return unittest.main(argv=argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
