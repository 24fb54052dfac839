"""Chinese written in pinyin as a vocabulary: the toneless pinyin of jieba 0.42.1's words of Han
characters (MIT, LICENSES/jieba-MIT.txt; readings by pypinyin 0.55.0, MIT,
LICENSES/pypinyin-MIT.txt), each word's syllables joined (`women`, `piru` 譬如). Read by
scripts/build-global-list.py (rule 13's vocabulary) and scripts/build-language-table.py
(LanguageEvidence's most frequent pinyin)."""
import logging


def pinyin_of_words():
    """(count, reading) of each word of jieba's dictionary made of Han characters whose reading
    is letters only, the most frequent word first; and jieba's total count."""
    import jieba
    from pypinyin import Style, lazy_pinyin

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    out = []
    for word, count in jieba.dt.FREQ.items():
        if count > 0 and all("\u4e00" <= c <= "\u9fff" for c in word):
            reading = "".join(lazy_pinyin(word, style=Style.NORMAL, v_to_u=False))
            if reading.isascii() and reading.isalpha():
                out.append((count, reading))
    return sorted(out, reverse=True), jieba.dt.total
