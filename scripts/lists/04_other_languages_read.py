"""The other languages' lists (rule 7: English look-alikes are opt-in), and what rules 13 and 14
read for every Latin list: the common words of each language the engine matches each entry on,
and the words borrowed with their sense."""
from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    english = s.english
    english_blocking = s.english_blocking
    ldnoobw = s.ldnoobw
    optional = s.optional
    vocabulary = s.vocabulary
    winnow = s.winnow
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
    s.borrowed = borrowed
    s.found = found
    s.frequencies = frequencies
    s.latin = latin
    s.listed = listed
