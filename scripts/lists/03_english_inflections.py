"""Rule 29: the inflected forms of the blocking English entries, and the plurals of insults."""
from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    english = s.english
    english_all = s.english_all
    ordinary_english = s.ordinary_english
    # Rule 26 reads a translation as listed when an English entry that rule 6 does not call
    # ordinary, nor rule 17 too short to mean one thing (`sb`, `xx`), matches it.
    english_blocking = [e for e in english if e not in ordinary_english and not too_short(e)]
    # Rule 29: the inflected forms of the blocking entries, unless WordNet knows the form as an
    # ordinary word of its own; rules 13, 14 and 17 judge them below like any entry.
    listed_english = {key(e) for e in english_all}
    # A possessive reads as the word with -s (`pussy's` is `pussys`), which a list may hold already.
    inflections = {f: e for f, e in english_inflections(english_blocking, s.wordnet_only).items()
                   if f not in listed_english and f.replace("'", "") not in listed_english}
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
                      if f not in listed_english and f.replace("'", "") not in listed_english
                      and f.endswith("s") and not f.endswith("ers")
                      and not key(e).endswith("man") and f not in inflections}
    ordinary_plurals = ordinary_inflections(insult_plurals, listed_english)
    LEDGER.note("en", [f for f in insult_plurals if f not in ordinary_plurals], 29,
                {f: f"the plural of the insult {e}" for f, e in insult_plurals.items()})
    insult_plurals = [f for f in insult_plurals if f not in ordinary_plurals]
    print(f"rule 29: en: {len(insult_plurals)} plurals of insults written: {', '.join(sorted(insult_plurals))}")
    ordinary_english = set(ordinary_english) | set(insult_plurals)
    english = dedupe(english + generated + insult_plurals)
    s.english = english
    s.english_blocking = english_blocking
    s.ordinary_english = ordinary_english
