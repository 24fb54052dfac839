"""The decisions of the list build: which rule placed each entry of the shipped lists, and why.

The build notes, stage by stage, the rules that decide an entry (`Ledger.note`) and the source
lists that hold it (`Ledger.source`). Every list file is then written from rows (`Row`): one per
line of the file, the header's comment lines included, each with the list, its section, the line
as written, the rules that decided the entry in the order they applied, and their evidence. The
rows are `wordlists/global/DECISIONS.tsv`; `render` turns them back into the list files, and the
build writes the lists only that way, so the table and the lists cannot disagree (a test of the
Swift package holds the committed ones to each other).

The table's columns: `list` (the file, relative to wordlists/), `section` (empty for the header),
`line` (as written), `rules` (rule numbers of wordlists/global/SOURCES.md joined by `+`, in the
order they applied; `source` for an entry no rule moved: the source lists decided it), and
`evidence` (per rule, joined by ` | `: what the rule read, or the source lists). Its first line
names the engine the rules that ask it used (the last commit that changed `Sources/`).
"""
import subprocess
from pathlib import Path

COLUMNS = ("list", "section", "line", "rules", "evidence")
HEADER_RULE = "header"


class Ledger:
    """What the build decided about each entry, by scope (a list's language: `en`, `zh`, `de`)
    and the entry as the engine reads it (the build's `key`)."""

    def __init__(self, key):
        self.key = key
        self.rules = {}
        self.sources = {}

    def source(self, scope, entries, name):
        """Notes that the source list `name` holds `entries`."""
        for entry in entries:
            names = self.sources.setdefault((scope, self.key(entry)), [])
            if name not in names:
                names.append(name)

    def note(self, scope, entries, rule, evidence=""):
        """Notes that rule `rule` decided `entries`. `evidence` is one text for all of them, or
        a mapping from entry to its own text."""
        for entry in entries:
            text = evidence.get(entry, "") if isinstance(evidence, dict) else evidence
            notes = self.rules.setdefault((scope, self.key(entry)), [])
            if (str(rule), text) not in notes:
                notes.append((str(rule), text))

    def row(self, list_name, section, line, scope, entry):
        """The row of `line`, which writes `entry` of `scope` in `section` of `list_name`."""
        notes = self.rules.get((scope, self.key(entry)), [])
        if notes:
            rules = "+".join(dict.fromkeys(rule for rule, _ in notes))
            evidence = " | ".join(f"{rule}: {text}" for rule, text in notes if text)
        else:
            rules = "source"
            evidence = ", ".join(self.sources.get((scope, self.key(entry)), []))
        return Row(list_name, section, line, rules, evidence)


class Row:
    """One line of a list file and why it is there."""

    __slots__ = COLUMNS

    def __init__(self, list, section, line, rules, evidence):
        for value in (list, section, line, rules, evidence):
            if "\t" in value or "\n" in value:
                raise ValueError(f"a tab or line break in a decision: {value!r}")
        self.list, self.section, self.line, self.rules, self.evidence = list, section, line, rules, evidence

    def fields(self):
        return [self.list, self.section, self.line, self.rules, self.evidence]


def header_rows(list_name, comment_lines):
    return [Row(list_name, "", line, HEADER_RULE, "") for line in comment_lines]


def render(rows):
    """The list files the rows describe: {list: text}. A section starts with a blank line and
    its `[name]` line, as the build has always written them."""
    files = {}
    for row in rows:
        lines, last = files.setdefault(row.list, ([], [None]))
        if row.section and row.section != last[0]:
            lines += ["", f"[{row.section}]"]
            last[0] = row.section
        lines.append(row.line)
    return {name: "\n".join(lines) + "\n" for name, (lines, _) in files.items()}


def engine_commit(root):
    """The last commit that changed the engine's sources, which the rules that ask `winnow`
    read (the build's binary is built from them)."""
    result = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%H", "--", "Sources", "Package.swift"],
                            capture_output=True, text=True, check=True)
    return result.stdout.strip()


def older_than_engine(root, winnow):
    """Whether the binary `winnow` was built before the last commit that changed the engine's
    sources: the table would then name a commit the rules did not run."""
    result = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct", "--", "Sources", "Package.swift"],
                            capture_output=True, text=True, check=True)
    return Path(winnow).stat().st_mtime < int(result.stdout.strip())


def write_table(path, rows, commit):
    lines = [f"# winnow {commit}", "\t".join(COLUMNS)] + ["\t".join(row.fields()) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")

