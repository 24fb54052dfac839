"""The engine's Arabic-script folding, as one translation table: written into the fold table
by scripts/generate-unicode-tables.py, and read by scripts/build-global-list.py to compare
entries as the engine reads them.

The marks written over and under letters (vowel signs, shadda, sukun, the hamza and madda
signs, Quranic annotations: every nonspacing mark of the Arabic blocks) are optional in
ordinary writing, and the tatweel only stretches a word: all dropped (كَس and كـس read as كس).
Alef with hamza or madda and alef wasla are written for the bare alef as often as not: they
fold to it (إغتصاب reads as اغتصاب). Persian kaf and yeh are the Arabic letters in other forms,
which an Arabic keyboard types for them, and alef maksura is written for yeh: they fold to kaf
and yeh (کیر and كير read alike). As in Lucene's Arabic and Persian normalizers; teh marbuta
stays, since as heh it would make words end in a pronoun (جماعة, group, would read as جماع,
intercourse, + ه, his). A Persian word that folding makes an Arabic one (منی, semen, and مني,
from me) is rule 13's to scope (wordlists/global/SOURCES.md).
"""
import unicodedata

ARABIC_BLOCKS = [(0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF)]
TATWEEL = 0x0640
ALEF = "\u0627"
ALEF_VARIANTS = (0x0622, 0x0623, 0x0625, 0x0671)
LETTER_FOLDS = {0x06A9: "\u0643", 0x06CC: "\u064a", 0x0649: "\u064a"}

# Scalar → its folded form ("" when dropped), for str.translate.
ARABIC_FOLDING = {cp: "" for low, high in ARABIC_BLOCKS for cp in range(low, high + 1)
                  if cp == TATWEEL or unicodedata.category(chr(cp)) == "Mn"}
ARABIC_FOLDING.update(dict.fromkeys(ALEF_VARIANTS, ALEF))
ARABIC_FOLDING.update(LETTER_FOLDS)
