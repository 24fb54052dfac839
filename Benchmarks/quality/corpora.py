#!/usr/bin/env python3
"""Builds the ordinary-text corpora of the detection-quality benchmark from Debian packages.

Usage: Benchmarks/quality/corpora.py OUT_DIR

Writes OUT_DIR/<language>.<source>.txt, one ordinary message a line, from packages that
`apt-get download` fetches without root (nothing is copied into the repository):

| source | packages | text |
|---|---|---|
| fortunes | fortunes, fortunes-min, fortunes-{zh,de,es,it,pl,ru,cs,br,eo,bg,ga} | quotations, proverbs, jokes, poetry |
| manpages | manpages-{de,es,fr,it,pl,ru,ja,zh,cs,da,el,fi,hu,id,mk,nb,nl,pt-br,ro,sr,sv,tr,uk,vi} | technical documentation, sentence by sentence |
| ui | coreutils, libglib2.0-data, libgtk-3-common, libgtk2.0-common, util-linux-locales | the translations of their messages (gettext catalogs), every language with 200 or more |
| book | debian-handbook | The Debian Administrator's Handbook: its English text and each translation's translated paragraphs (those not word for word the English), every language with 200 or more sentences |
| help | gnome-user-docs | GNOME's help for desktop users, read the same way as the handbook |
| office | libreoffice-help-{en-us,de,ja,…} (32 languages) | LibreOffice's help, read the same way |

A message is one sentence or short passage of 5 to 200 characters, as chat messages are.
Sources are capped at MAX_PER_SOURCE messages, picked by a fixed hash so that the choice does
not change from run to run. The language is the package's (for `ui`, the catalog's locale:
`pt_BR` is `pt`, `nb` is `no`, `tl` is `fil`; for `book` and `help`, the translation's: `ar-MA` is `ar`),
not a guess.
"""
import gzip
import hashlib
import html
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

MAX_PER_SOURCE = 6000
ANSI = re.compile(r"\x1b\[[0-9;]*m")

FORTUNE_PACKAGES = {
    "fortunes": ("en", None), "fortunes-min": ("en", None), "fortunes-zh": ("zh", None),
    "fortunes-de": ("de", "de"), "fortunes-es": ("es", "es"), "fortunes-it": ("it", "it"),
    "fortunes-pl": ("pl", "pl"), "fortunes-ru": ("ru", "ru"), "fortunes-cs": ("cs", "cs"),
    "fortunes-br": ("pt", None), "fortunes-eo": ("eo", "eo"), "fortunes-bg": ("bg", "bg"),
    "fortunes-ga": ("ga", "ga"),
}
MANPAGE_PACKAGES = {
    "manpages-de": ("de", "de"), "manpages-es": ("es", "es"), "manpages-fr": ("fr", "fr"),
    "manpages-it": ("it", "it"), "manpages-pl": ("pl", "pl"), "manpages-ru": ("ru", "ru"),
    "manpages-ja": ("ja", "ja"), "manpages-zh": ("zh", "zh_CN"),
    "manpages-cs": ("cs", "cs"), "manpages-da": ("da", "da"), "manpages-el": ("el", "el"),
    "manpages-fi": ("fi", "fi"), "manpages-hu": ("hu", "hu"), "manpages-id": ("id", "id"),
    "manpages-mk": ("mk", "mk"), "manpages-nb": ("no", "nb"), "manpages-nl": ("nl", "nl"),
    "manpages-pt-br": ("pt", "pt_BR"), "manpages-ro": ("ro", "ro"), "manpages-sr": ("sr", "sr"),
    "manpages-sv": ("sv", "sv"), "manpages-tr": ("tr", "tr"), "manpages-uk": ("uk", "uk"),
    "manpages-vi": ("vi", "vi"),
}
# Packages whose gettext catalogs (usr/share/locale/*/LC_MESSAGES/*.mo) cover many languages.
UI_PACKAGES = ["coreutils", "libglib2.0-data", "libgtk-3-common", "libgtk2.0-common", "util-linux-locales"]
# A locale's language, where it is not the part before `_` or `@`: as the lists name them.
UI_LANGUAGES = {"nb": "no", "tl": "fil"}
MINIMUM_MESSAGES = 200
BOOK_PACKAGE = "debian-handbook"
BOOK_PARAGRAPH = re.compile(r'<div class="para">(.*?)</div>', re.S)
BOOK_WORD = re.compile(r"[^\W\d_]{2,}")
HELP_PACKAGE = "gnome-user-docs"
HELP_PARAGRAPH = re.compile(r"<(p|title|desc)\b[^>]*>(.*?)</\1>", re.S)
HELP_INFO = re.compile(r"<info>.*?</info>", re.S)
# LibreOffice's help: one package a language (`libreoffice-help-de` …); its HTML pages'
# paragraphs, headings and table cells.
OFFICE_PACKAGES = [
    "libreoffice-help-" + code for code in (
        "ca cs da de dz el en-us es et eu fi fr gl hi hu id it ja km ko nl om pl pt pt-br ru sk sl sv "
        "tr vi zh-cn zh-tw").split()]
OFFICE_PARAGRAPH = re.compile(r"<(p|h[1-6]|td)\b[^>]*>(.*?)</\1>", re.S)
# Fortune files of the English and Chinese packages that are sentences (not ASCII art).
ENGLISH_SKIP = {"ascii-art", "art"}


def decode(data):
    for encoding in ("utf-8", "koi8-r", "iso-8859-2", "latin-1"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")


def pieces(text, split_sentences=True):
    """Sentences of chat length (5 to 200 characters), attributions (`-- Mark Twain`) left out."""
    out = []
    pattern = r"(?<=[。！？!?.])\s*|\n\s*\n" if split_sentences else r"\n\s*\n"
    for piece in re.split(pattern, text):
        piece = " ".join(piece.split())
        if 5 <= len(piece) <= 200 and not piece.startswith("--") and re.search(r"\w\w", piece):
            out.append(piece)
    return out


def fortune_messages(root, subdir):
    base = root / "usr/share/games/fortunes"
    if subdir:
        base = base / subdir
    messages = []
    if not base.is_dir():
        return messages
    for path in sorted(base.iterdir()):
        if path.suffix in (".dat", ".u8") or path.is_dir() or path.name in ENGLISH_SKIP or path.is_symlink():
            continue
        text = ANSI.sub("", decode(path.read_bytes()))
        for passage in re.split(r"\n%\n", text):
            messages += pieces(passage)
    return messages


ROFF_REQUEST = re.compile(r"^[.'](?!\s*(?:B|I|BI|IB|BR|RB|IR|RI|SM|SB)\b)")
ROFF_FONT = re.compile(r"^[.'](?:B|I|BI|IB|BR|RB|IR|RI|SM|SB)(?:\s+|$)")
ROFF_ESCAPE = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\\*(?:\[[^\]]*\]|\(..|.)|\\\(..|\\\[[^\]]*\]|\\[&|^%e-]|\\s[-+]?\d+|\\c")


def man_text(source):
    """The running text of a man page: requests dropped, font changes and escapes removed."""
    lines = []
    for line in source.splitlines():
        if ROFF_FONT.match(line):
            line = ROFF_FONT.sub("", line).replace('"', "")
        elif ROFF_REQUEST.match(line) or line.startswith(('.\\"', "'\\\"")):
            lines.append("")
            continue
        lines.append(ROFF_ESCAPE.sub("", line).replace("\\-", "-").replace("\\ ", " ").replace("\\\\", "\\"))
    return "\n".join(lines)


def manpage_messages(root, subdir):
    base = root / "usr/share/man" / subdir
    messages = []
    for path in sorted(base.rglob("*.gz")):
        if path.is_symlink():
            continue
        try:
            text = man_text(decode(gzip.decompress(path.read_bytes())))
        except (OSError, EOFError):
            continue
        messages += pieces(text)
    return messages


def catalog_strings(data):
    """The translations in a gettext .mo catalog (each plural form; the header and strings left
    as the original are not)."""
    order = "<" if struct.unpack("<I", data[:4])[0] == 0x950412DE else ">"
    _, count, originals, translations = struct.unpack(order + "4I", data[4:20])
    for index in range(count):
        original_length, original_offset = struct.unpack(order + "2I", data[originals + 8 * index:][:8])
        length, offset = struct.unpack(order + "2I", data[translations + 8 * index:][:8])
        if original_length == 0:
            continue
        original = data[original_offset:original_offset + original_length].split(b"\0")[0]
        for text in data[offset:offset + length].split(b"\0"):
            if text and text != original:
                yield text.decode("utf-8", errors="replace")


def ui_messages(root):
    """(language, message) of every catalog under `root`, keyboard accelerators (`_Open`) left out."""
    out = []
    for catalog in sorted((root / "usr/share/locale").glob("*/LC_MESSAGES/*.mo")):
        locale = catalog.parts[-3]
        language = UI_LANGUAGES.get(locale, re.split(r"[_@]", locale)[0])
        for text in catalog_strings(catalog.read_bytes()):
            out += [(language, m) for m in pieces(re.sub(r"_(?=\w)", "", text))]
    return out


def page_paragraphs(pages, pattern, left_out=None):
    """The paragraphs of some pages: the last group of each match of `pattern`, tags dropped,
    entities resolved, white space collapsed; `left_out` (a pattern) is removed from each page
    first."""
    out = []
    for page in pages:
        text = page.read_text(encoding="utf-8", errors="replace")
        if left_out:
            text = left_out.sub("", text)
        for match in pattern.finditer(text):
            paragraph = " ".join(html.unescape(re.sub(r"<[^>]+>", "", match.group(match.lastindex))).split())
            if paragraph:
                out.append(paragraph)
    return out


def book_paragraphs(directory):
    """The paragraphs of one language's HTML of the handbook."""
    return page_paragraphs(sorted(directory.glob("*.html")), BOOK_PARAGRAPH)


def translations(english, translated_by_language):
    """(language, message) of a document: every English paragraph, and each translation's
    translated paragraphs. A translation keeps some paragraphs in English, from this or an
    older edition: a paragraph at least 90% of whose words are words of the English text is
    one of those, and left out (measured on the handbook: translated paragraphs fall mostly
    below 50%, the English ones above 90%)."""
    out = [("en", m) for paragraph in english for m in pieces(paragraph)]
    vocabulary = {w for paragraph in english for w in BOOK_WORD.findall(paragraph.lower())}

    def translated(paragraph):
        words = BOOK_WORD.findall(paragraph.lower())
        return sum(w in vocabulary for w in words) < 0.9 * len(words)

    for language, paragraphs in translated_by_language:
        out += [(language, m) for paragraph in paragraphs if translated(paragraph) for m in pieces(paragraph)]
    return out


def book_messages(root):
    """(language, message) of the handbook, by ``translations``."""
    base = root / "usr/share/doc/debian-handbook/html"
    if not base.is_dir():
        print(f"note: {base} is missing: no book source", file=sys.stderr)
        return []
    return translations(
        book_paragraphs(base / "en-US"),
        ((UI_LANGUAGES.get(d.name.split("-")[0], d.name.split("-")[0]), book_paragraphs(d))
         for d in sorted(base.iterdir()) if d.is_dir() and d.name not in ("en-US", "Common_Content")))


def help_paragraphs(directory):
    """The titles, summaries and paragraphs of one language's GNOME help pages (Mallard XML),
    the pages' `<info>` (authors, translators' names and addresses) left out."""
    return page_paragraphs(sorted(directory.rglob("*.page")), HELP_PARAGRAPH, HELP_INFO)


def help_messages(root):
    """(language, message) of GNOME's help, by ``translations`` (the locale `C` is English)."""
    base = root / "usr/share/help"
    if not (base / "C").is_dir():
        print(f"note: {base}/C is missing: no help source", file=sys.stderr)
        return []
    return translations(
        help_paragraphs(base / "C"),
        ((UI_LANGUAGES.get(d.name, re.split(r"[_@]", d.name)[0]), help_paragraphs(d))
         for d in sorted(base.iterdir()) if d.is_dir() and d.name != "C"))


def office_paragraphs(directory):
    """The paragraphs, headings and table cells of one language's LibreOffice help pages."""
    return page_paragraphs(sorted(directory.rglob("*.html")), OFFICE_PARAGRAPH)


def office_messages(roots):
    """(language, message) of LibreOffice's help, by ``translations``; each package unpacks
    one language's pages into usr/share/libreoffice/help/<locale> (`en-US` is English, `pt-BR`
    is `pt`, `zh-TW` is `zh`)."""
    directories = {d.name: d for root in roots for d in (root / "usr/share/libreoffice/help").glob("*")
                   if d.is_dir() and d.name != "media"}
    if "en-US" not in directories:
        print("note: libreoffice-help-en-us is missing: no office source", file=sys.stderr)
        return []
    return translations(
        office_paragraphs(directories["en-US"]),
        ((name.split("-")[0], office_paragraphs(d)) for name, d in sorted(directories.items())
         if not name.startswith("en")))


def extracted(tmp, package):
    """The directory the downloaded `package` is unpacked into, or None when it did not come."""
    debs = sorted(tmp.glob(f"{package}_*.deb"))
    if not debs:
        return None
    root = tmp / package
    subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    return root


def capped(messages):
    unique = sorted(set(messages))
    if len(unique) <= MAX_PER_SOURCE:
        return unique
    return sorted(unique, key=lambda m: hashlib.sha1(("pick:" + m).encode()).hexdigest())[:MAX_PER_SOURCE]


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        packages = (list(FORTUNE_PACKAGES) + list(MANPAGE_PACKAGES) + UI_PACKAGES + [BOOK_PACKAGE, HELP_PACKAGE]
                    + OFFICE_PACKAGES)
        fetched = subprocess.run(["apt-get", "download", "-q", *packages], cwd=tmp, capture_output=True, text=True)
        if fetched.returncode != 0:
            print(f"note: apt-get download failed; corpora from the packages that came:\n{fetched.stderr}",
                  file=sys.stderr)
        corpora = {}
        for package, (lang, subdir) in {**FORTUNE_PACKAGES, **MANPAGE_PACKAGES}.items():
            root = extracted(tmp, package)
            if root is None:
                continue
            if package in FORTUNE_PACKAGES:
                corpora.setdefault((lang, "fortunes"), []).extend(fortune_messages(root, subdir))
            else:
                corpora.setdefault((lang, "manpages"), []).extend(manpage_messages(root, subdir))
        ui = {}
        for package in UI_PACKAGES:
            root = extracted(tmp, package)
            for lang, message in ui_messages(root) if root else ():
                ui.setdefault(lang, set()).add(message)
        for lang, messages in ui.items():
            if len(messages) >= MINIMUM_MESSAGES:
                corpora[(lang, "ui")] = list(messages)
        def unpacked(package):
            root = extracted(tmp, package)
            return [root] if root else []

        documents = {
            "book": lambda: [m for root in unpacked(BOOK_PACKAGE) for m in book_messages(root)],
            "help": lambda: [m for root in unpacked(HELP_PACKAGE) for m in help_messages(root)],
            "office": lambda: office_messages([root for p in OFFICE_PACKAGES for root in unpacked(p)]),
        }
        for source, messages_of in documents.items():
            by_language = {}
            for lang, message in messages_of():
                by_language.setdefault(lang, set()).add(message)
            for lang, messages in by_language.items():
                if len(messages) >= MINIMUM_MESSAGES:
                    corpora[(lang, source)] = list(messages)
        for (lang, source), messages in sorted(corpora.items()):
            chosen = capped(messages)
            (out / f"{lang}.{source}.txt").write_text("".join(m + "\n" for m in chosen), encoding="utf-8")
            print(f"{lang}.{source}: {len(chosen)} messages", file=sys.stderr)


if __name__ == "__main__":
    main()
