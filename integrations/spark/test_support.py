"""Helpers of integrations/spark/test: the test dumps, and the comparison of a Spark run with a
scan on one machine."""

import collections
import gzip
import json
import os
import sys

# Counts that depend on how a run was cut, not on what it found.
# How the run was cut, not what it found; and `senders`, the ten worst senders, which a sum of
# parts' summaries gives as the ten worst of each part's ten (exact offenders come from
# `winnow scan --offenders` and `winnow offenders`, see Docs/offenders.md).
RUN_SHAPE = {"seconds", "jobs", "parts", "senders"}


def split(sample, directory):
    """The sample dump as four files: plain, gzipped, plain with malformed lines (broken JSON,
    an empty line, a CRLF line end, a line that is not an item), and plain again."""
    with open(sample, encoding="utf-8") as source:
        lines = source.read().splitlines()
    os.makedirs(directory, exist_ok=True)
    quarter = len(lines) // 4
    parts = [lines[:quarter], lines[quarter : 2 * quarter], lines[2 * quarter : 3 * quarter], lines[3 * quarter :]]
    malformed = ['{"msgUID":"M1","content":{"content":', "", "not json at all", '["an","array"]']
    third = parts[2]
    for position, line in zip((5, 400, 900, 1200), malformed):
        third.insert(position, line)
    third[10] += "\r"
    with open(os.path.join(directory, "part-1.jsonl"), "w", encoding="utf-8") as out:
        out.write("\n".join(parts[0]) + "\n")
    with gzip.open(os.path.join(directory, "part-2.jsonl.gz"), "wt", encoding="utf-8") as out:
        out.write("\n".join(parts[1]) + "\n")
    with open(os.path.join(directory, "part-3.jsonl"), "w", encoding="utf-8", newline="") as out:
        out.write("\n".join(third) + "\n")
    with open(os.path.join(directory, "part-4.jsonl"), "w", encoding="utf-8") as out:
        out.write("\n".join(parts[3]) + "\n")


def results(lines):
    """Result objects, counted, with files and lists named by their last path component (one
    run names `/tmp/x/part-1.jsonl`, Spark `file:/tmp/x/part-1.jsonl`)."""
    keyed = collections.Counter()
    for line in lines:
        if not line.strip():
            continue
        record = json.loads(line)
        record["file"] = record["file"].rsplit("/", 1)[-1]
        # Lists too: executors of a cluster read them where they are shipped.
        for match in record.get("matches", []):
            for key in ("file", "list"):
                if key in match:
                    match[key] = match[key].rsplit("/", 1)[-1]
        keyed[json.dumps(record, sort_keys=True, ensure_ascii=False)] += 1
    return keyed


def counts(summary):
    return {key: value for key, value in summary.items() if key not in RUN_SHAPE}


def compare(one_results, one_summary, spark_output):
    with open(one_results, encoding="utf-8") as file:
        expected = results(file)
    spark_lines = []
    for name in sorted(os.listdir(spark_output)):
        if name.startswith("part-"):
            with open(os.path.join(spark_output, name), encoding="utf-8") as file:
                spark_lines += file.read().splitlines()
    got = results(spark_lines)
    if got != expected:
        missing, extra = expected - got, got - expected
        for label, records in (("only in the one-machine scan", missing), ("only in the Spark run", extra)):
            for record in list(records)[:5]:
                print(f"{label}: {record}", file=sys.stderr)
        sys.exit(f"FAIL: results differ ({sum(missing.values())} missing, {sum(extra.values())} extra)")
    with open(one_summary, encoding="utf-8") as file:
        summary_one = json.load(file)
    with open(os.path.join(spark_output, "_summary.json"), encoding="utf-8") as file:
        summary_spark = json.load(file)
    if counts(summary_one) != counts(summary_spark):
        for key in sorted(set(summary_one) | set(summary_spark)):
            if key not in RUN_SHAPE and summary_one.get(key) != summary_spark.get(key):
                print(f"{key}: one machine {summary_one.get(key)}, Spark {summary_spark.get(key)}", file=sys.stderr)
        sys.exit("FAIL: the summaries differ")
    errors = sum(1 for record in expected if '"verdict": "error"' in record)
    print(
        f"ok: {sum(expected.values())} results ({errors} error records) and the summary of "
        f"{summary_one['read']} lines equal, over {summary_spark['parts']} Spark partitions",
        file=sys.stderr,
    )


def parquet_count(directory, expected):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("winnow test: parquet").getOrCreate()
    frame = spark.read.parquet(directory)
    count, columns = frame.count(), set(frame.columns)
    spark.stop()
    if count != int(expected) or not {"file", "line", "verdict"} <= columns:
        sys.exit(f"FAIL: Parquet has {count} rows and columns {sorted(columns)}, expected {expected} results")
    print(f"ok: {count} results as Parquet", file=sys.stderr)


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    {"split": split, "compare": compare, "parquet_count": parquet_count}[command.replace("-", "_")](*arguments)
