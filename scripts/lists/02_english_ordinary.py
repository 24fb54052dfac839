"""Rule 6: English words with an ordinary sense are opt-in (no offensive sense at all) or flagged
for review."""
from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    english_all = s.english_all
    extra_english = s.extra_english
    ldnoobw = s.ldnoobw
    names = s.names
    older_keys = s.older_keys
    winnow = s.winnow
    added = {key(e) for e in extra_english} - older_keys
    opt_in, ordinary_english = ordinary_english_words(english_all, set(map(key, read_lines(ldnoobw / "en"))), names,
                                                      winnow, added)
    english = [e for e in english_all if e not in opt_in]
    optional = {"en": [e for e in english_all if e in opt_in]}
    print(f"rule 6: en: {len(opt_in)} opt-in: {', '.join(sorted(opt_in, key=key))}")
    LEDGER.note("en", opt_in, 6, "an ordinary word: opt-in")
    LEDGER.note("en", ordinary_english, 6, "an ordinary sense: review")
    print(f"rule 6: en: {len(ordinary_english)} flagged for review: {', '.join(sorted(ordinary_english, key=key))}")
    s.english = english
    s.optional = optional
    s.ordinary_english = ordinary_english
