"""The opt-in lists (wordlists/optional/), and the decisions table of every list written."""
from lists.decisions import engine_commit, write_table
from lists.common import *  # noqa: F401,F403
from lists.evidence import *  # noqa: F401,F403
from lists.english import *  # noqa: F401,F403
from lists.chinese import *  # noqa: F401,F403


def run(s):
    """Reads what the stages before it left in `s`, and leaves what the stages after it read."""
    counts = s.counts
    optional = s.optional
    for lang, entries in sorted(optional.items()):
        name = f"{lang}-ordinary.txt"
        header = (f"Opt-in: entries of the {lang} sources that are ordinary words in chat.\n"
                  "Load with --global wordlists/global --global wordlists/optional.")
        count = write_to(OPTIONAL / name, header, [("ordinary", entries)], lang)
        counts[f"optional/{name}"] = count

    # The table of decisions, in the order of the files (the global lists, then the opt-in ones)
    # and of their lines.
    rows = sorted(ROWS, key=lambda row: (row.list.startswith("optional/"), row.list))
    write_table(OUT / "DECISIONS.tsv", rows, engine_commit(ROOT))
    for name, count in sorted(counts.items()):
        print(f"{name}\t{count}")
