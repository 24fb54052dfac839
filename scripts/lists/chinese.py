"""The Chinese rules' own helpers: ordinary vocabulary (rule 10), the lexicon (rule 12), the
classifier (rule 20), profanity and its variants (rules 27 and 30), insults by the dictionary
(rule 28)."""
import math
import re

from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403


def features(entry):
    """Rule 20's features of an entry: its characters and pairs of neighbouring characters,
    read as the category markers read them (NFKC, case folded, Traditional as Simplified)."""
    folded = "^" + category_key(entry) + "$"
    return [folded[i] for i in range(1, len(folded) - 1)] + [folded[i:i + 2] for i in range(len(folded) - 1)]


def reclassify(sections, default, threshold):
    """Rule 20: the entries of `default` (the catch-all) that a naive Bayes classifier over
    `features`, trained on the entries the markers placed, puts in one category with a
    posterior of at least `threshold`, moved there. Returns the new sections and the moved
    entries (which keep the catch-all's review action: a guess names a category, it does not
    make a word safe to block)."""
    counts, totals, sizes = {}, {}, {}
    vocabulary = set()
    for name, entries in sections:
        if name == default:
            continue
        sizes[name] = len(entries)
        table = counts.setdefault(name, {})
        for entry in entries:
            for feature in features(entry):
                table[feature] = table.get(feature, 0) + 1
                totals[name] = totals.get(name, 0) + 1
                vocabulary.add(feature)
    names = sorted(sizes)
    total_size = sum(sizes.values())
    moved = {name: [] for name in names}
    kept = []
    for name, entries in sections:
        if name != default:
            continue
        for entry in entries:
            scores = []
            for category in names:
                score = math.log(sizes[category] / total_size)
                for feature in features(entry):
                    score += math.log((counts[category].get(feature, 0) + 1) / (totals[category] + len(vocabulary)))
                scores.append(score)
            best = max(scores)
            posterior = 1 / sum(math.exp(other - best) for other in scores)
            if posterior >= threshold:
                moved[names[scores.index(best)]].append(entry)
            else:
                kept.append(entry)
    sections = [(name, entries + moved.get(name, []) if name != default else kept) for name, entries in sections]
    return sections, {e for entries in moved.values() for e in entries}


def ordinary_chinese(sections):
    """Rule 10: entries of `sections` that are frequent whole words of wordfreq's Chinese."""
    import logging

    import jieba
    from wordfreq import tokenize, zipf_frequency

    jieba.setLogLevel(logging.WARNING)
    ordinary = set()
    for category, entries in sections:
        threshold = ORDINARY_ZIPF.get(category)
        if threshold is None:
            continue
        for entry in entries:
            if tokenize(entry, "zh") == [key(entry)] and zipf_frequency(entry, "zh") >= threshold:
                ordinary.add(entry)
    return ordinary


def lexicon_and_guarded(sections):
    """Rule 12: the lexicon words, and the entries to write `word:`."""
    words = jieba_words()
    # A doubled character is one unit of normalized text (一个个 reads as 一个): such words are left out.
    lexicon = sorted(
        w for w, zipf in words.items()
        if (zipf >= LEXICON_ZIPF and len(w) in (2, 3) or len(w) == 1 and zipf >= 0)
        and all(map(is_cjk, w)) and all(a != b for a, b in zip(w, w[1:]))
    )
    guarded = {
        e for name, entries in sections if name in GUARDED_CATEGORIES
        for e in entries if len(e) == 2 and all(map(is_cjk, e)) and e not in words
    }
    return [f"{w} {max(words[w], 0):.1f}" for w in lexicon], guarded


def across_ordinary_word(text, start, end, ordinary):
    """Rule 27: whether a word of `ordinary` (two to four characters) in `text` holds the span
    [start, end) and more: the span is read as part of that word (操 in 操作系统, operating
    system; 老母 in 老母鸡, hen). A word that only overlaps it does not (你老 in 驶你老母)."""
    for i in range(max(0, end - 4), start + 1):
        for j in range(max(end, i + 2), min(len(text), i + 4) + 1):
            if (i < start or j > end) and text[i:j] in ordinary:
                return True
    return False


def variant_folded(text):
    """Rule 27: `text` with variant characters read as the ones they stand for, and for each
    position whether it was changed."""
    chars, changed = list(text), [False] * len(text)
    for variant, base in VARIANT_WORDS.items():
        at = text.find(variant)
        while at >= 0:
            chars[at:at + len(base)] = base
            changed[at:at + len(base)] = [True] * len(base)
            at = text.find(variant, at + 1)
    for i, c in enumerate(chars):
        if not changed[i] and c in VARIANT_CHARACTERS:
            chars[i], changed[i] = VARIANT_CHARACTERS[c], True
    return "".join(chars), changed


def profane(entry, blocking, ordinary, words=frozenset()):
    """Rule 27: whether a Chinese entry holds a profanity morpheme, or a blocking entry of two
    characters or more as written or with variant characters, where no ordinary word holds it;
    `words` are jieba's dictionary words (a two-character entry that is one is not read through
    a variant).
    `blocking` and `ordinary` are read as category_key reads entries (Simplified, case folded)."""
    text = category_key(entry)
    for morpheme in PROFANITY_MORPHEMES:
        at = text.find(morpheme)
        while at >= 0:
            if not across_ordinary_word(text, at, at + len(morpheme), ordinary):
                return True
            at = text.find(morpheme, at + 1)
    for i in range(len(text)):
        for j in range(i + 2, min(len(text), i + 8) + 1):
            if (i, j) != (0, len(text)) and text[i:j] in blocking and not across_ordinary_word(text, i, j, ordinary):
                return True  # it holds a blocking entry, which would block the text anyway
    folded, changed = variant_folded(text)
    if folded == text:
        return False
    # Two characters read through 马, 吗 (horse, the question particle) or a word of its own
    # (大比, a contest; as in 大比分) are that, not a curse: only 妳, b, and 比 or 笔 ending a
    # non-word (傻比) make a two-character entry another.
    if folded in blocking and (len(text) >= 3 or (text not in words and all(
            not changed[k] or text[k] in ALWAYS_VARIANTS or (k == len(text) - 1 and text[k] in "比笔")
            for k in range(len(text))))):
        return True
    for i in range(len(folded)):
        for j in range(i + 2, min(len(folded), i + 8) + 1):
            if folded[i:j] not in blocking or not any(changed[i:j]) or across_ordinary_word(text, i, j, ordinary):
                continue
            # Inside a longer entry, a two-character word is read through a variant only where
            # the variant is no other word: 妳 or b anywhere, 比 or 笔 ending it (傻比); not
            # 吗 (陪你吗, with you?) or 马 (马的, a horse's), which read as themselves there.
            if j - i >= 3 or all(not changed[k] or text[k] in ALWAYS_VARIANTS
                                 or (k == j - 1 and text[k] in "比笔") for k in range(i, j)):
                return True
    return False


def chinese_variants(entry, ordinary, listed):
    """Rule 27: the variants of a blocking profanity entry to write as entries: each character
    of VARIANTS_OF written as one of its variants (妳 and b for every such character at once
    and one at a time; the others one at a time, in entries of three characters or more),
    leaving out a variant that is a listed entry already, an ordinary word, or one across which
    an ordinary word runs at the changed character."""
    text = category_key(entry)
    out = set()
    for base, variants in VARIANTS_OF.items():
        positions = [i for i, c in enumerate(text) if c == base]
        for variant in variants:
            if variant not in ALWAYS_VARIANTS and len(text) < 3:
                continue
            written = [(text[:i] + variant + text[i + 1:], [i]) for i in positions]
            if variant in ALWAYS_VARIANTS and len(positions) > 1:
                written.append((text.replace(base, variant), positions))
            for candidate, changed in written:
                if candidate in listed or candidate in ordinary:
                    continue
                if variant not in ALWAYS_VARIANTS and any(
                        across_ordinary_word(candidate, i, i + 1, ordinary) for i in changed):
                    continue
                if has_latin_between_cjk(candidate) and variant == "b":
                    continue  # rule 4: the normalizer makes a letter between CJK characters optional
                if not any(map(is_cjk, candidate)):
                    continue  # rule 4: `2b` is no Chinese word, and matches in any text
                out.add(candidate)
    return out


# Rule 27: a sense that gives the headword as another way of writing one (`variant of 混蛋[hun2
# dan4]`, `(substitute for 我肏[wo3 cao4]) fuck`).
CEDICT_VARIANT = re.compile(r"\b(?:variant of|substitute for)\s", re.I)


def dictionary_variants(english_entries):
    """Rule 27: the headwords CC-CEDICT gives as variants of, or substitutes for, other words:
    simplified, two to four Han characters, each sense either such a pointer or glossed by an
    English list entry (`卧槽`: substitute for 我肏, fuck, WTF; not `我曹`, which is also the
    archaic `we`, nor `喵的`: drat, frick). → {word: the words pointed at, simplified}."""
    entries = {key(e) for e in english_entries}
    out = {}
    for word, senses in chinese_definitions().items():
        if not 2 <= len(word) <= INSULT_LENGTH or not all(map(is_cjk, word)) or word.translate(SIMPLIFIED) != word:
            continue
        bases, glossed = set(), True
        for d in senses:
            targets = CEDICT_REFERENCE.findall(d) if CEDICT_VARIANT.search(d) else []
            if targets:
                bases |= {category_key(t) for t in targets}
            elif re.sub(r"\([^)]*\)", "", d).strip().casefold() not in entries:
                glossed = False
                break
        if glossed and bases and word not in bases:
            out[word] = bases
    return out


def promote_profanity(sections, reviewed, evidence, marked, ordinary_words, words, variants_by_dictionary=None):
    """Rules 27 and 28 for Chinese. Rule 27: a review entry (of a review category, or flagged by
    rules 16, 20 or 26: `reviewed`) that `profane` holds blocks, in `profanity` when its category was a review
    one; then each blocking profanity entry's variants (`chinese_variants`) are added to
    `profanity`. Rule 28: the review entries left in `profanity` that rule 9's markers placed
    there (`marked`: 白痴, 去死; not rule 20's guesses, nor rule 30's entries, which rule 26 may
    flag for an ordinary sense that is no insult: 祖宗 ancestors) are insults. A word the
    dictionary gives only as a variant of blocking entries (`variants_by_dictionary`, from
    `dictionary_variants`) blocks too (`浑蛋`: variant of 混蛋), and is written when no list
    holds it and it is no ordinary word (`屁眼儿`; not `畜牲`, a word of jieba's dictionary).
    → (sections, reviewed, promoted, variants,
    insults)."""
    variants_by_dictionary = variants_by_dictionary or {}
    vulgar = {category_key(e) for name, entries in sections if name in ("profanity", "sexual") for e in entries}
    # Ordinary words: frequent words of jieba's dictionary that are not profanity or sexual
    # entries, and entries flagged for an ordinary sense (`evidence`: rule 16's frequency, rule
    # 26's dictionary), not by rule 20's guess.
    ordinary = {w for w in ordinary_words if w not in vulgar} | {category_key(e) for e in evidence}
    blocking = {category_key(e) for name, entries in sections if name in ("profanity", "sexual")
                for e in entries if e not in reviewed and len(category_key(e)) >= 2}
    following = {word for word, bases in variants_by_dictionary.items() if bases <= blocking}
    promoted = set()
    out = []
    moved = []
    for name, entries in sections:
        kept = []
        for e in entries:
            is_review = name in REVIEW_CATEGORIES or e in reviewed
            if is_review and (profane(e, blocking, ordinary, words) or category_key(e) in following):
                promoted.add(e)
                if name in REVIEW_CATEGORIES:
                    moved.append(e)
                    continue
            kept.append(e)
        out.append((name, kept))
    reviewed = {e for e in reviewed if e not in promoted}
    listed_now = {category_key(e) for _, entries in out for e in entries} | {category_key(e) for e in moved}
    profanity = [e for name, entries in out if name == "profanity" for e in entries if e not in reviewed] + moved
    variants = set()
    for e in profanity:
        if 2 <= len(e) <= INSULT_LENGTH:
            variants |= chinese_variants(e, ordinary, listed_now)
    variants |= {w for w in following if w not in listed_now and w not in ordinary}
    insults = {e for name, entries in out if name == "profanity" for e in entries
               if e in reviewed and e in marked and 2 <= len(e) <= INSULT_LENGTH and all(map(is_cjk, e))}
    out = [(name, sorted(entries + (moved + sorted(variants) if name == "profanity" else []), key=key))
           for name, entries in out]
    return out, reviewed, promoted, variants, insults


def profanity_by_source(sections, named, reclassified=frozenset()):
    """Rule 30: the entries of `named` (LDNOOBW's hand-made list of profanity, and entries
    CC-CEDICT marks offensive) that sit in the catch-all, or that rule 20's classifier placed,
    go to `profanity`: a list of profanity, or a dictionary's mark, says what the catch-all
    could not. Named categories keep theirs (做爱 stays `sexual`). → (sections, moved)."""
    moved = [e for name, entries in sections for e in entries
             if e in named and (name == "sensitive" or e in reclassified)]
    out = [(name, [e for e in entries if e not in moved] + (sorted(set(moved), key=key) if name == "profanity" else []))
           for name, entries in sections]
    if not any(name == "profanity" for name, _ in out):
        out.append(("profanity", moved))
    return out, set(moved)


def dictionary_insults(entries, english_insults_, english_profanity, jieba_zipf):
    """Rule 28 for Chinese, by the dictionary: the entries of two to four Han characters one of
    whose CC-CEDICT senses, read without its parenthesized notes, is an English insult: a rule-28
    English insult (`蠢货`: idiot, moron; `智障`: retarded), or a blocking English profanity entry
    that WordNet knows as a noun for a person (`杂种`: bastard). A word frequent enough to have an
    ordinary sense (rule 16's cut in jieba's counts: `小姐` miss, and prostitute in slang) is
    not one. → the entries."""
    persons, _, disparaged, _, _, _ = wordnet_nouns_for_persons()
    words = {key(e) for e in english_insults_} | {key(e) for e in english_profanity if key(e) in persons}
    # A noun WordNet knows only as a person, and files under an unpleasant person or a simpleton
    # (`傻叉`: fool; blockhead), is an insult too.
    words |= disparaged & wordnet_person_nouns()
    definitions = chinese_definitions()
    out = set()
    for e in entries:
        if not 2 <= len(e) <= INSULT_LENGTH or not all(map(is_cjk, e)):
            continue
        if jieba_zipf.get(category_key(e), -math.inf) >= ORDINARY_SENSE_ZIPF:
            continue
        senses = chinese_senses(category_key(e), definitions) or chinese_senses(e, definitions) or []
        if any(re.sub(r"\([^)]*\)", "", d).strip().casefold() in words for d in senses):
            out.add(e)
    return out


# Rule 32: a definition that only points at another headword (`variant of 傻屄[sha3 bi1]`): the
# senses it points at stand for it.
CEDICT_POINTER = re.compile(r"^(?:(?:old |archaic |Japanese |erhua )?variant of|see (?:also )?|abbr\. for|same as)\s", re.I)
# Rule 32: the dictionary's marks of a vulgar or abusive word, not of mere disapproval (`derog.`
# also marks `窜访`, a visit one disapproves of, and `一路货色`, birds of a feather).
CEDICT_ABUSIVE = re.compile(r"\([^)]*\b(?:vulgar|offensive|insult|taboo|rude)\b[^)]*\)", re.I)
CEDICT_DISAPPROVING = re.compile(r"\([^)]*\b(?:derog\w*|pejorativ\w*)\b[^)]*\)|\bderogatory term\b", re.I)


def dictionary_entries(listed, english_profanity, jieba_zipf):
    """Rule 32: CC-CEDICT's own abuse, as entries. Each headword in simplified characters of two
    to four Han characters that no source lists (`listed`, keys in simplified characters), read
    with the senses of the headwords its pointers point at (`傻逼`: variant of `傻屄`), not those
    of headwords a sense only names (`地支`, the earthly branches, names `丑`, clown):
    - every sense marked vulgar, offensive, taboo, rude or an insult, unhedged → profanity, which
      blocks (`忘八蛋`: turtle's egg, highly offensive when directed at sb);
    - otherwise, when it is not frequent enough for an ordinary sense (rule 16's cut), and each
      sense is marked so, or is an English insult (a blocking English profanity entry, or a
      person WordNet files under `simpleton`, that WordNet knows only as a noun for a person:
      `蠢货` idiot; not `螺丝`, screw, nor `水手`, seaman), or is marked derogatory or pejorative
      and names a people (`阿三`: an Indian, derog.; not `婆娘`: woman, derog., a disrespectful
      word for a wife, not an insult) → an insult of rule 28, which blocks where it is aimed at
      someone. A word with another sense has an ordinary one, and is not taken (`棒子`: stick,
      and derog. Korean; `黄种人`: yellow man, and Mongoloid). A sense written capitalized
      otherwise is a name (`迪克`: Dick), not an insult.
    → (profane, insults, evidence: entry → the senses that decided it)."""
    _, _, _, simpletons, peoples, _ = wordnet_nouns_for_persons()
    person_only = wordnet_person_nouns()
    insults = {key(e) for e in english_profanity if key(e) in person_only} | (simpletons & person_only)
    definitions = chinese_definitions()
    profane, insulting, evidence = set(), set(), {}
    for word in sorted(definitions):
        if (not 2 <= len(word) <= INSULT_LENGTH or not all(map(is_cjk, word)) or word.translate(SIMPLIFIED) != word
                or word in listed):
            continue
        senses = []
        for d in definitions[word]:
            if not CEDICT_POINTER.match(d):
                senses.append(d)
                continue
            for target in CEDICT_REFERENCE.findall(d):
                senses += [t for t in definitions.get(target, []) if not CEDICT_POINTER.match(t)]
        if not senses:
            continue
        unhedged = [not CEDICT_HEDGED.search(d) for d in senses]
        if all(u and CEDICT_ABUSIVE.search(d) for d, u in zip(senses, unhedged)):
            profane.add(word)
            evidence[word] = "; ".join(senses)
            continue
        if jieba_zipf.get(word, -math.inf) >= ORDINARY_SENSE_ZIPF:
            continue
        deciding = []
        for d, u in zip(senses, unhedged):
            bare = re.sub(r"\([^)]*\)", "", d).strip()
            if bare[:1].isupper() and not CEDICT_DISAPPROVING.search(d):
                continue  # a name
            bare = re.sub(r"^(?:an?|the) ", "", bare.casefold())
            if (bare in insults or (u and CEDICT_ABUSIVE.search(d))
                    or (u and CEDICT_DISAPPROVING.search(d) and bare in peoples)):
                deciding.append(d)
        if deciding and len(deciding) == len(senses):
            insulting.add(word)
            evidence[word] = "; ".join(deciding)
    return profane, insulting, evidence
