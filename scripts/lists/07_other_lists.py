"""The other languages' lists: rules 13, 14 and 17, frequency (16), translations (26), and allow
entries for languages written without spaces (11)."""
import math

from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    borrowed = s.borrowed
    counts = s.counts
    english_blocking = s.english_blocking
    found = s.found
    frequencies = s.frequencies
    latin = s.latin
    listed = s.listed
    winnow = s.winnow
    ordinary_zipf = {"ja": common_words("ja"), "fa": persian_zipf()}  # rule 16
    translated_ordinary = ordinary_by_translation(latin, english_blocking, winnow)
    for language, entries in ordinary_by_dictionary(latin, english_blocking, winnow).items():
        translated_ordinary.setdefault(language, set()).update(entries)
    for language, entries in sorted(latin.items()):
        if language == "en":
            continue
        code = language.split("-")[0]
        kept, scoped, reviewed, also, scoped_reviewed = split_latin(language, entries, found,
                                                                    code in DETECTED_LANGUAGES, listed,
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
        scoped_reviewed += [e for e in scoped if e in ordinary]  # still another language's word too
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
