#!/usr/bin/env python3
"""Builds wordlists/global/zh-pinyin.txt: the Chinese profanity and sexual entries written in
pinyin, the way chat writes them when it avoids the characters (`shabi`, `sha bi`, `cao ni ma`,
and the initials `cnm`, `nmsl`).

Usage: scripts/build-pinyin-list.py
  Needs pypinyin 0.55.0 (its pinyin tables, MIT) and wordfreq 3.1.1 from PyPI
  (python3 -m pip install pypinyin==0.55.0 wordfreq==3.1.1). Reads wordlists/global/zh.txt,
  so run it after scripts/build-global-list.py. Output is deterministic (sorted, deduplicated).

Rules (stated in wordlists/global/SOURCES.md, rules 21-25 and 34):
21. Which entries: the block entries (not `review:`) of the `profanity` and `sexual` sections of
    zh.txt made of two to four Han characters. Review entries were judged ambiguous in Han
    already; in pinyin, which loses the characters, they are more so.
22. Full pinyin, toneless, in the reading pypinyin gives the whole entry (its phrase table
    resolves polyphones: 傻逼 sha bi), with a space or nothing between each two syllables
    (`cao ni ma`, `cao nima`, `caoni ma`; the matcher reads an entry of several words in joined
    text itself, `caonima`, so that form is not written); ü is written both `v`
    (the keyboard's spelling) and `u` (what stripping the tone marks of `ǚ` leaves). Tone
    marks need no entries: normalization strips them from the text.
23. A pinyin that is a word of another language: not written when its joined form is a common
    word (Zipf 3.0, rule 13's cut) of any of wordfreq's languages but Chinese (`made`, 妈的);
    flagged for review, not blocked, when it reaches Zipf 2.0 (once per 100 million words)
    there (`si bi`, 死逼: Polish `sibi`). Vietnamese writes its words as spaced syllables, which
    wordfreq counts one by one: a spaced form that is a word of pyvi 0.1.1's Vietnamese
    dictionary (MIT; 31,157 words, fetched from PyPI), diacritics stripped as the engine strips
    them, is flagged for review (`bao cao`, 暴操, is `báo cáo`, report). The dictionary gives no
    frequencies, so the lower band applies.
24. Initials, for profanity entries of three or four syllables (chat abbreviates its insults and
    curses; a sexual phrase's initials are as often a product's or a site's name): written only when Chinese text is the
    main user of the string, that is when it is itself a token of wordfreq's Chinese vocabulary
    at Zipf 1.0 or more and more frequent there than in every other language (`cnm` 2.9 against
    at most 2.4, `nmsl`, `tmd`); such an initialism is that entry's abbreviation in chat. They are
    written in a `lang=zh` section: they match in Chinese and mixed text and in text of no
    language, not in English or other languages' text (`CNM`, a certified nurse-midwife).
    Two-letter initials (`sb`) are too short to tell from other abbreviations (rule 17).
25. A pinyin that ordinary Chinese reads as is flagged for review, not blocked. Its frequency
    in ordinary text is estimated from jieba 0.42.1's dictionary (the profanity and sexual
    entries of zh.txt left out): as a word's reading, Zipf 3.0 or more (rule 10's cut; `renqi`
    is 人妻, and 人气 popularity; `youji` 游记 travelogue); or as the end of one word followed by
    the start of the next, words taken independently, Zipf 4.0 or more (rule 16's cut for a
    word with an ordinary sense; `ren yao` is 人妖, and 人 + 要 "people want"). A pinyin that
    reads as a word with an ordinary sense (Zipf 4.0 or more as a word: `jiu shi` 就是, `ren qi`
    人气; 5.0 across two words) is not written at all: flagging it would flag ordinary pinyin
    text wholesale.
34. Chinese written a syllable at a time reads every two neighbouring syllables as a possible
    word (`bu cuo bi jiao`, 不错 比较, holds `cuo bi`). zh-pinyin-lexicon.txt gives the engine
    rule 25's estimate of ordinary readings as `lexicon:` lines: every single syllable, and
    readings of two or three syllables at Zipf 3.0 or more (rule 10's cut), spaced
    (`lexicon:bi jiao 5.4`). A spaced entry whose words are all syllables then does not match
    where the likeliest segmentation of the syllables around it puts a word across one of its
    edges, as a Han entry does with zh-lexicon.txt (rule 18).
The entries go to the categories `pinyin.profanity` and `pinyin.sexual`, so
`--exclude-category pinyin` switches them all off and reports still name the kind of word.
"""
import re
import sys
from pathlib import Path

from pypinyin import Style, lazy_pinyin
import logging
import math
from collections import Counter

import jieba
from wordfreq import available_languages, get_frequency_dict, zipf_frequency

jieba.setLogLevel(logging.WARNING)
jieba.initialize()

ROOT = Path(__file__).resolve().parent.parent
GLOBAL = ROOT / "wordlists" / "global"
SOURCE = GLOBAL / "zh.txt"
OUT = GLOBAL / "zh-pinyin.txt"
LEXICON_OUT = GLOBAL / "zh-pinyin-lexicon.txt"
LEXICON_ZIPF = 3.0  # rule 34: readings of two or three syllables (rule 10's cut)

CATEGORIES = ("profanity", "sexual")
HAN = re.compile(r"^[\u4e00-\u9fff]{2,4}$")
ANY_HAN = re.compile(r"^[\u4e00-\u9fff]+$")
SYLLABLE = re.compile(r"^[a-z]+$")
OTHER_LANGUAGE_ZIPF = 2.0  # rule 23: flagged for review
COMMON_ZIPF = 3.0  # rule 23: not written (rule 13's cut)
INITIALS_ZIPF = 1.0  # rule 24


def block_entries():
    """(category, entry) of rule 21, in file order."""
    section = None
    for line in SOURCE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            name, _, options = line.strip("[]").partition(":")
            # A `review` section's entries are review entries too (`[profanity: review, insult]`:
            # an insult blocks only where aimed, which its pinyin cannot tell).
            section = None if "review" in (o.strip() for o in options.split(",")) else name.strip()
            continue
        if section not in CATEGORIES or not line or line.startswith("#") or line.startswith("review:"):
            continue
        entry = line.removeprefix("word:")
        if HAN.match(entry):
            yield section, entry


def listed_entries():
    """Every entry (block or review) of zh.txt's profanity and sexual sections."""
    listed, section = set(), None
    for line in SOURCE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").split(":")[0].strip()
        elif section in CATEGORIES and line and not line.startswith("#"):
            listed.add(line.removeprefix("review:").removeprefix("word:"))
    return listed


def syllables(entry):
    """The entry's toneless pinyin, one syllable a character; None when a character has none."""
    result = lazy_pinyin(entry, style=Style.NORMAL, errors=lambda chars: ["-"] * len(chars))
    if len(result) != len(entry) or not all(s and SYLLABLE.match(s) for s in result):
        return None
    return result


def spellings(parts):
    """Rule 22: the ü syllables written with `v` and with `u`."""
    spelled = [parts]
    if any("v" in p for p in parts):
        spelled.append([p.replace("v", "u") for p in parts])
    return spelled


# Every wordfreq language but Chinese; Japanese and Korean need MeCab to look a word up, and
# their vocabularies write Latin words as English does.
OTHER_LANGUAGES = sorted(lang for lang in available_languages() if lang not in ("zh", "ja", "ko"))


def foreign_zipf(form):
    """Rule 23: the form's highest frequency as a word of another language."""
    return max(zipf_frequency(form, lang) for lang in OTHER_LANGUAGES)


VIETNAMESE_PACKAGE = "pyvi==0.1.1"
VIETNAMESE_WORDS = "pyvi/models/words.txt"


def vietnamese_words():
    """Rule 23: the words of several syllables of pyvi's Vietnamese dictionary, lower case,
    diacritics stripped (`báo cáo` → `bao cao`; `đ` has no decomposition and stays)."""
    import unicodedata

    from pypi import wheel_member

    text = wheel_member(VIETNAMESE_PACKAGE, VIETNAMESE_WORDS).decode("utf-8")
    out = set()
    for word in text.splitlines():
        decomposed = unicodedata.normalize("NFKD", word.strip().lower())
        folded = " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())
        if " " in folded:
            out.add(folded)
    return out


def spacings(spelled):
    """Rule 22: the syllables with a space or nothing between each two, all joined but one (the
    matcher reads the spaced form in joined text itself): `cao ni ma`, `cao nima`, `caoni ma`."""
    out = []
    for mask in range(1, 2 ** (len(spelled) - 1)):
        form = spelled[0]
        for i, syllable in enumerate(spelled[1:]):
            form += (" " if mask >> i & 1 else "") + syllable
        out.append(form)
    return out


CHINESE_TOKENS = get_frequency_dict("zh")


def chinese_initialism(initials):
    """Rule 24: Chinese text is the main user of the string (looked up as one token: wordfreq's
    estimate for a string its Chinese vocabulary lacks combines the letters' pieces)."""
    frequency = CHINESE_TOKENS.get(initials)
    if frequency is None:
        return False
    in_chinese = math.log10(frequency) + 9
    return in_chinese >= INITIALS_ZIPF and all(zipf_frequency(initials, lang) < in_chinese for lang in OTHER_LANGUAGES)


ORDINARY_WORD_ZIPF = 3.0  # rule 25: as a word's reading (rule 10's cut)
ACROSS_WORDS_ZIPF = 4.0  # rule 25: across two words (rule 16's cut for an ordinary sense)
ORDINARY_SENSE_ZIPF = 4.0  # rule 25: not written at all (as a word; across two words, one more)


class OrdinaryReadings:
    """Rule 25: how often ordinary Chinese text reads as a pinyin, from jieba's dictionary (words
    other than the listed entries, taken independently of each other): as a word's reading, and
    as the end of one word's reading followed by the start of the next one's."""

    def __init__(self, listed):
        total = jieba.dt.total
        self.word, self.start, self.end = Counter(), Counter(), Counter()
        for word, count in jieba.dt.FREQ.items():
            if count <= 0 or word in listed or not ANY_HAN.match(word):
                continue
            parts = syllables(word)
            share = count / total
            for spelled in spellings(parts) if parts else []:
                self.word[" ".join(spelled)] += share
                for k in range(1, len(spelled) + 1):
                    self.start[" ".join(spelled[:k])] += share
                    self.end[" ".join(spelled[-k:])] += share

    def lexicon(self):
        """Rule 34: (reading, Zipf) of every single syllable and of the readings of two or three
        syllables at LEXICON_ZIPF or more, sorted."""
        out = []
        for reading, share in self.word.items():
            count, frequency = len(reading.split(" ")), zipf(share)
            if count == 1 or (count <= 3 and frequency >= LEXICON_ZIPF):
                out.append((reading, frequency))
        return sorted(out)

    def frequencies(self, spelled):
        """Zipf frequencies of the reading as a word, and across two words."""
        as_word = self.word[" ".join(spelled)]
        across = sum(self.end[" ".join(spelled[:i])] * self.start[" ".join(spelled[i:])] for i in range(1, len(spelled)))
        return zipf(as_word), zipf(across)

    def ambiguous(self, spelled):
        as_word, across = self.frequencies(spelled)
        return as_word >= ORDINARY_WORD_ZIPF or across >= ACROSS_WORDS_ZIPF

    def ordinary(self, spelled):
        as_word, across = self.frequencies(spelled)
        return as_word >= ORDINARY_SENSE_ZIPF or across >= ORDINARY_SENSE_ZIPF + 1


# Rule 34, as the engine applies it (Sources/Winnow/Matching/WordEdges/Segmentation.swift):
# a piece scores its Zipf frequency in tenths minus 90; a single syllable the lexicon lacks 20;
# the entry at least 30.
PIECE, UNKNOWN_WEIGHT, ENTRY_FLOOR, CONTEXT = -90, 20, 30, 3


def syllables_cut(words, entry, weights):
    """Whether the entry (a range of `words`, each a syllable of `weights`) is cut from likelier
    readings of the syllables around it, up to CONTEXT on each side."""
    if len(entry) < 2 or not all(words[k] in weights for k in entry):
        return False
    left, right = entry.start, entry.stop
    while left > 0 and entry.start - left < CONTEXT and words[left - 1] in weights:
        left -= 1
    while right < len(words) and right - entry.stop < CONTEXT and words[right] in weights:
        right += 1
    window, start, stop = words[left:right], entry.start - left, entry.stop - left
    count = len(window)

    def score(at, length):
        value = weights.get(" ".join(window[at:at + length]))
        if length == 1:
            return (UNKNOWN_WEIGHT if value is None else value) + PIECE
        return None if value is None else value + PIECE

    low = -(10 ** 9)
    prefix, suffix = [low] * (count + 1), [low] * (count + 1)
    prefix[0], suffix[count] = 0, 0
    for end in range(1, count + 1):
        for length in range(1, 4):
            if end - length >= 0 and (value := score(end - length, length)) is not None:
                prefix[end] = max(prefix[end], prefix[end - length] + value)
    for begin in range(count - 1, -1, -1):
        for length in range(1, 4):
            if begin + length <= count and (value := score(begin, length)) is not None:
                suffix[begin] = max(suffix[begin], value + suffix[begin + length])
    own = weights.get(" ".join(window[start:stop])) if stop - start <= 3 else None
    kept = prefix[start] + max(own or 0, ENTRY_FLOOR) + PIECE + suffix[stop]
    for begin in range(count):
        for length in (2, 3):
            end = begin + length
            crosses = (begin < start < end < stop) or (start < begin < stop < end)
            if end <= count and crosses and (value := score(begin, length)) is not None:
                if prefix[begin] + value + suffix[end] > kept:
                    return True
    return False


def zipf(share):
    return math.log10(share) + 9 if share > 0 else 0.0


def main():
    entries = list(block_entries())
    ordinary = OrdinaryReadings(listed_entries())
    existing = set()
    for path in GLOBAL.glob("*.txt"):
        if path not in (OUT, LEXICON_OUT):
            existing.update(line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines())
    vietnamese = vietnamese_words()
    chosen = {}  # form -> (category, review)
    initialisms = set()
    for category, entry in entries:
        parts = syllables(entry)
        if parts is None:
            continue
        forms = []
        for spelled in spellings(parts):
            joined = "".join(spelled)
            frequency = foreign_zipf(joined)
            if frequency >= COMMON_ZIPF:
                continue
            review = frequency >= OTHER_LANGUAGE_ZIPF
            forms += [(form, review or form in vietnamese) for form in spacings(spelled)]
        if any(ordinary.ordinary(spelled) for spelled in spellings(parts)):
            continue
        review_all = any(ordinary.ambiguous(spelled) for spelled in spellings(parts))
        if review_all:
            forms = [(form, True) for form, _ in forms]
        if len(parts) >= 3 and category == "profanity":
            initials = "".join(p[0] for p in parts)
            if chinese_initialism(initials):
                forms.append((initials, False))
                initialisms.add(initials)
        for form, review in forms:
            if form in existing:
                continue
            previous = chosen.get(form)
            if previous is None or (previous[1] and not review):
                chosen[form] = (previous[0] if previous else category, review)
    # A form that holds a shorter blocking form as whole words is redundant (`cao bi dian ying`
    # holds `cao bi`): every text it matches is blocked already. Not where rule 34 cuts the
    # shorter form from the form's own syllables (`mao niu bi` holds `niu bi`, which reads as
    # `mao niu` 牦牛 yak + `bi`): the longer form is then the one that blocks.
    blocking = {form for form, (_, review) in chosen.items() if not review}
    weights = {reading: round(float(f"{frequency:.1f}") * 10) for reading, frequency in ordinary.lexicon()}

    def redundant(form):
        words = form.split(" ")
        return any(" ".join(words[i:j]) in blocking and not syllables_cut(words, range(i, j), weights)
                   for i in range(len(words)) for j in range(i + 1, len(words) + 1) if j - i < len(words))

    chosen = {form: value for form, value in chosen.items() if not redundant(form)}
    header = [
        "# Chinese profanity and sexual entries of zh.txt written in pinyin: full pinyin (a syllable",
        "# a word, or grouped by words), and the initials chat uses for some of them. Pinyin readings from pypinyin 0.55.0",
        "# (MIT, LICENSES/pypinyin-MIT.txt); word frequencies from wordfreq 3.1.1 (CC BY-SA 4.0).",
        "# Switch them off with --exclude-category pinyin. Rules 21-25 of SOURCES.md.",
        "# Generated by scripts/build-pinyin-list.py; edit the script, not this file.",
    ]
    lines = list(header)
    for category in CATEGORIES:
        # Rule 24: initials are chat's abbreviations in Chinese and mixed text, scoped to Chinese
        # (`lang=zh`): `cnm` does not match in English text (CNM, a nurse-midwife).
        for section, scoped in ((f"[pinyin.{category}]", False), (f"[pinyin.{category}: lang=zh]", True)):
            forms = sorted(f for f, (c, _) in chosen.items() if c == category and (f in initialisms) == scoped)
            if not forms:
                continue
            lines.append("")
            lines.append(section)
            for form in forms:
                lines.append(("review:" if chosen[form][1] else "") + form)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reviewed = sum(1 for _, r in chosen.values() if r)
    print(f"{OUT.relative_to(ROOT)}: {len(chosen)} entries, {reviewed} for review", file=sys.stderr)
    readings = ordinary.lexicon()
    lines = [
        "# Chinese words of jieba 0.42.1's dictionary (MIT, LICENSES/jieba-MIT.txt) as they read in",
        "# toneless pinyin, a syllable at a time (pypinyin 0.55.0, MIT, LICENSES/pypinyin-MIT.txt; ü",
        "# written both v and u): every single syllable, and readings of two or three syllables at",
        "# Zipf 3.0 or more, each with the Zipf frequency of all the words that read so (the profanity",
        "# and sexual entries of zh.txt left out). They match nothing: a spaced pinyin entry",
        "# (`cuo bi`) does not match where a likelier reading of the syllables around it cuts it",
        "# (`bu cuo bi jiao`, 不错 比较; rule 34 of SOURCES.md). `--exclude-category lexicon` turns",
        "# that off.",
        "# Generated by scripts/build-pinyin-list.py; edit the script, not this file.",
        "",
        "[lexicon.pinyin]",
    ]
    lines += [f"lexicon:{reading} {frequency:.1f}" for reading, frequency in readings]
    LEXICON_OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{LEXICON_OUT.relative_to(ROOT)}: {len(readings)} readings", file=sys.stderr)


if __name__ == "__main__":
    main()
