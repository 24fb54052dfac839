"""en.txt: categories by markers (rule 9), scoped or flagged words of other languages (13), folding
(14), too short (17), names (19), insults (28)."""
from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    borrowed = s.borrowed
    counts = s.counts
    english = s.english
    found = s.found
    frequencies = s.frequencies
    listed = s.listed
    names = s.names
    ordinary_english = s.ordinary_english
    respelled = s.respelled
    LEDGER.note("en", [e for e in english if key(e) in names], 19, "also a name (wamerican): the name option")
    sections = []
    english_insult_entries, english_profanity = set(), set()
    for category, entries in categorize(english, [("sexual", ENGLISH_SEXUAL)], "profanity", "en"):
        kept, scoped, reviewed, also, scoped_reviewed = split_latin("en", entries, found, True, listed, frequencies,
                                                                    borrowed)
        reviewed += [e for e in kept if e in ordinary_english]
        scoped_reviewed += [e for e in scoped if e in ordinary_english]
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
        "4.1.0, safetext 0.3.3 and wordfilter 0.2.7 (MIT); WordNet 3.0's nouns of abuse (its license, rule 33).\n"
        "Latin-script entries match whole words (see Docs/word-lists.md). Ordinary words are in ../optional/.\n"
        "`lang=en` sections: entries that are common words of other languages too (rule 13 of SOURCES.md).",
        sections,
        "en",
    )
    s.english_insult_entries = english_insult_entries
    s.english_profanity = english_profanity
