"""What every stage of the list build shares: the paths, reading and writing lists (each line with
its row of the decisions table), the rules' parameters, and the helpers of more than one stage."""
import json
import math
import re
import subprocess
import unicodedata
from pathlib import Path

from arabic_folding import ARABIC_FOLDING
from lists.decisions import Ledger, header_rows, render
from pypi import wheel_member
ROOT = Path(__file__).resolve().parent.parent.parent
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


def zipf(frequency):
    return math.log10(frequency * 1e9) if frequency > 0 else -math.inf


def covers(match, text):
    """Whether a match of the engine (byte offsets) is the whole of `text`."""
    return match["start"] == 0 and match["end"] == len(text.encode("utf-8"))


def alphanumerics(entry):
    return sum(1 for c in key(entry) if c.isalnum())


def too_short(entry):
    """Rule 17: an entry of one or two letters or digits once normalized, or of one letter
    repeated."""
    return alphanumerics(entry) <= 2 or len({c for c in key(entry) if c.isalnum()}) == 1


def split_latin(language, entries, found, detected, listed, frequencies, borrowed=frozenset()):
    """Rules 13, 14 and 17 for one language's entries: (kept, scoped, reviewed, also,
    scoped_reviewed), `also` mapping each scoped or reviewed entry to the other languages whose common word it matched
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
      review.
    An entry flagged by 14 or 17 that 13 finds another detected language's word stays scoped
    as well (the fifth list, `scoped_reviewed`): it is flagged in its own language's text only,
    not wherever that word is written (the Japanese `挿入` is Chinese `插入`, insert, once
    shinjitai fold)."""
    kept, scoped, reviewed, also, scoped_reviewed = [], [], [], {}, []
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
        if other and not detected:
            reviewed.append(entry)
        elif too_short(entry) or folded_own:
            (scoped_reviewed if other else reviewed).append(entry)
        elif other:
            scoped.append(entry)
        else:
            kept.append(entry)
    return kept, scoped, reviewed, also, scoped_reviewed


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
