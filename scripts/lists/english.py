"""The English rules' own helpers: ordinary words (rule 6), spellings (rule 31), insults (rule 28)
and inflections (rule 29)."""

from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403


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


def english_inflections(entries, nouns=frozenset()):
    """Rule 29: the inflected forms of English entries of one word (letters only, three or more):
    the plural or third person (-s, -es, -ies), and for words of up to five letters (the roots:
    `fuck`, `slut`, `screw`; longer ones are mostly nouns built on them, `asshole`) -ing, -ed,
    -er, -ers and -y, spelled by the usual rules (a final silent e dropped, a final consonant
    after one vowel doubled: `slutty`, `fagging`), but for the keys in `nouns`, which get their
    plural only (rule 33's nouns: `wogs`, not `wogging`), and the possessive where the plural
    is not the word with -s (`bitch's`, which the normalizer reads as `bitchs`; a word ending
    in s reads its possessive as itself with its s repeated, `ass's`). → form → the entry it
    inflects."""
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
        # The possessive: the normalizer drops an apostrophe inside a word, so `slut's` reads as
        # `sluts`, the plural; where the plural is spelled otherwise (`bitches`), `bitch's` is a
        # form of its own.
        possessive = [word + "'s"] if plural != word + "s" and not word.endswith("s") else []
        forms = [plural, stem + "ing", stem + "ed", stem + "er", stem + "ers"]
        if word.endswith("y"):
            forms = [plural, word + "ing", word[:-1] + ("ied" if word[-2] not in vowels else "yed")]
        elif not word.endswith("e"):
            forms.append(stem + "y")
        for form in possessive + (forms if len(word) <= 5 and word not in nouns else forms[:1]):
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
