"""winnow scan on Apache Spark: moderate every line of message dumps on a cluster's executors.

    spark-submit integrations/spark/winnow_scan.py [winnow scan options] --output OUT DUMP...

DUMP is any path or glob Spark reads (hdfs://, s3a://, file:, .gz); OUT gets the result objects
`winnow scan` writes, as JSON Lines `part-*` files (`--format parquet`: Parquet), and
`_summary.json`, the summary of the whole run. The summary is printed as `winnow scan` prints
one, and the job exits as `winnow scan` would: 0 nothing found, 1 something blocked, replaced
or flagged, 3 lines that could not be read, 2 an error, 64 a usage mistake.

How it runs. The dumps are read as text, split as Spark splits files. Each line is tagged with
its file and the number of its split's first line (`winnow scan --tagged`), and every partition
is piped through one `winnow scan --tagged --summary-json -` on an executor: the lines never
pass through Python. A split's first line number comes from a count of the lines of the splits
before it, made only for the files Spark splits (a .gz file, or a file smaller than a split, is
one split starting at line 1). The results therefore name each line's file (as Spark names it,
a URI) and its line number, exactly as a scan of that file on one machine does, and a task
Spark retries gives the same output: the results are a pure function of the input lines.

Options of this job (all others pass to `winnow scan` unchanged):
    --output OUT       the output directory (required; must not exist)
    --format FORMAT    json (default) or parquet
    --winnow PATH      the winnow binary (default: `winnow` on the PATH)
    --jobs N           workers of each `winnow scan` (default 1: one a task, as Spark gives
                       a task one core; raise it with spark.task.cpus)
    --offenders PATH   also write the offenders of the whole run to PATH (any path Spark
                       writes): each task's `winnow scan --offenders -` lines, merged on the
                       driver by `winnow offenders --json`, so the file is the one a scan of
                       all the dumps on one machine writes (`--policy FILE` applies to both)

Shipping. With a `local` master, the executors run on this machine and use the binary, the
lists and their compiled cache where they are. Otherwise the binary (built with
--static-swift-stdlib, it needs only libc, zlib and libpcre2-8 on the executors), the global
list directory (`--global`, or the one the binary uses by default), `--custom` files, the
`--apps` directory and the `--reviewer-secret-file` go to the executors in one archive with
SparkContext.addArchive; each executor compiles the global list once into its own
compiled-list cache.
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

USAGE = "usage: spark-submit winnow_scan.py [winnow scan options] --output OUT DUMP..."

# Options of `winnow scan` that this job sets itself.
RESERVED = {"--output", "-o", "--tagged", "--summary-json", "--no-progress", "--quiet", "--jobs"}
# Options whose value is a local path the executors need.
SHIPPED = {
    "--global": "global",
    "--custom": "custom",
    "--apps": "apps",
    "--reviewer-secret-file": "secret",
    "--policy": "policy",
}


def fail(message, status=2):
    print(f"winnow scan on Spark: {message}", file=sys.stderr)
    sys.exit(status)


def scan_options(winnow):
    """The options of `winnow scan`, by name: True for those that take a value."""
    try:
        dump = subprocess.run([winnow, "scan", "--experimental-dump-help"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        fail(f"cannot run {winnow}: {error}")
    options = {}
    for argument in json.loads(dump.stdout)["command"]["arguments"]:
        for name in argument.get("names", []):
            prefix = "-" if name["kind"] == "short" else "--"
            options[prefix + name["name"]] = argument["kind"] == "option"
    return options


def parse(argv):
    """This job's settings, `winnow scan`'s own options, and the dumps."""
    if any(argument in ("-h", "--help") for argument in argv):
        print(__doc__)
        sys.exit(0)
    settings = {
        "output": None,
        "format": "json",
        "winnow": shutil.which("winnow") or "winnow",
        "jobs": "1",
        "offenders": None,
    }
    own = {"--output": "output", "--format": "format", "--winnow": "winnow", "--jobs": "jobs", "--offenders": "offenders"}
    passed, dumps = [], []
    index = 0
    # --winnow first: it says which `winnow scan` options there are.
    for position, argument in enumerate(argv):
        if argument == "--winnow" and position + 1 < len(argv):
            settings["winnow"] = argv[position + 1]
        elif argument.startswith("--winnow="):
            settings["winnow"] = argument.split("=", 1)[1]
    options = scan_options(settings["winnow"])
    while index < len(argv):
        argument = argv[index]
        name, inline = (argument.split("=", 1) + [None])[:2] if argument.startswith("--") else (argument, None)
        if argument == "--":
            dumps += argv[index + 1 :]
            break
        if name in own:
            if inline is None:
                index += 1
                if index >= len(argv):
                    fail(f"{name} needs a value\n{USAGE}", 64)
                inline = argv[index]
            settings[own[name]] = inline
        elif name in RESERVED:
            fail(f"{name} is set by this job\n{USAGE}", 64)
        elif name in options:
            value = []
            if options[name] and inline is None:
                index += 1
                if index >= len(argv):
                    fail(f"{name} needs a value\n{USAGE}", 64)
                value = [argv[index]]
            passed.append((name, inline if inline is not None else (value[0] if value else None)))
        elif argument.startswith("-") and argument != "-":
            fail(f"unknown option {argument} (see winnow scan --help)\n{USAGE}", 64)
        else:
            dumps.append(argument)
        index += 1
    if not settings["output"]:
        fail(f"--output is required\n{USAGE}", 64)
    if settings["format"] not in ("json", "parquet"):
        fail(f"--format must be json or parquet, not {settings['format']}", 64)
    if not dumps:
        fail(f"no dumps to scan\n{USAGE}", 64)
    if not settings["jobs"].isdigit() or not 1 <= int(settings["jobs"]) <= 256:
        fail("--jobs must be from 1 to 256", 64)
    return settings, passed, dumps


def default_global(winnow):
    """The built-in global list directory, as `winnow` finds it (see GlobalListLocator)."""
    if os.environ.get("WINNOW_GLOBAL"):
        return os.environ["WINNOW_GLOBAL"]
    binary = os.path.realpath(shutil.which(winnow) or winnow)
    directory = os.path.dirname(binary)
    installed = os.path.join(os.path.dirname(directory), "share", "winnow", "global")
    if os.path.isdir(installed):
        return installed
    while directory != "/":
        candidate = os.path.join(directory, "wordlists", "global")
        if os.path.isdir(candidate):
            return candidate
        directory = os.path.dirname(directory)
    fail(f"cannot find the built-in global list of {binary}: give --global DIR")


def ship(sc, settings, passed):
    """The command each task runs, with the binary and the lists shipped to the executors
    (or, on a local master, where they are)."""
    winnow = shutil.which(settings["winnow"]) or settings["winnow"]
    if not os.access(winnow, os.X_OK):
        fail(f"{settings['winnow']} is not an executable winnow (give --winnow PATH)")
    local = sc.master.startswith("local[") or sc.master == "local"
    arguments = []
    if local:
        binary = os.path.abspath(winnow)
        for name, value in passed:
            if name in SHIPPED and value is not None:
                value = os.path.abspath(value)
            arguments += [name] + ([value] if value is not None else [])
    else:
        # One compressed archive: the binary shrinks to a third, and the lists come with it. The
        # built-in lists go where an installed winnow finds them (share/winnow beside bin/).
        binary = "winnow-bundle.tgz/bin/winnow"
        bundle = tempfile.mkdtemp(prefix="winnow-ship-")
        archive = os.path.join(bundle, "winnow-bundle.tgz")
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(os.path.realpath(winnow), arcname="bin/winnow")
            builtin = default_global(winnow)
            tar.add(builtin, arcname="share/winnow/global")
            contact = os.path.join(os.path.dirname(os.path.normpath(builtin)), "contact")
            if os.path.isdir(contact):
                tar.add(contact, arcname="share/winnow/contact")
            for position, (name, value) in enumerate(passed):
                if name in SHIPPED and value is not None:
                    if not os.path.exists(value):
                        fail(f"{name} {value}: no such file or directory")
                    # The file keeps its name: summaries name lists by it.
                    member = f"{SHIPPED[name]}-{position}/{os.path.basename(os.path.normpath(value))}"
                    tar.add(value, arcname=member)
                    value = "winnow-bundle.tgz/" + member
                arguments += [name] + ([value] if value is not None else [])
        sc.addArchive(archive)
    # winnow's exit status 1 (found) and 3 (unreadable lines, which have error records) are
    # results, not failures; any other fails the task, and Spark retries it.
    # (An archive unpacked without its modes leaves the binary unexecutable: it is made so.)
    script = (
        'w="$1"; shift; [ -x "$w" ] || chmod u+x "$w"; "$w" "$@"; s=$?; '
        'case "$s" in 0|1|3) exit 0;; esac; exit "$s"'
    )
    offenders = ["--offenders", "-"] if settings["offenders"] else []
    return ["sh", "-c", script, "winnow-task", binary, "scan", "--tagged", "--summary-json", "-", "--no-progress", "--quiet",
            "--jobs", settings["jobs"]] + offenders + arguments + ["-"]


def check_paths(spark, dumps):
    """Refuses, before any task runs, a dump path that matches no file."""
    jvm = spark.sparkContext._jvm
    configuration = spark.sparkContext._jsc.hadoopConfiguration()
    for dump in dumps:
        path = jvm.org.apache.hadoop.fs.Path(dump)
        try:
            statuses = path.getFileSystem(configuration).globStatus(path)
        except Exception as error:  # py4j wraps the Hadoop error; its message names the cause
            fail(f"{dump}: {str(error).splitlines()[0]}")
        if statuses is None or len(statuses) == 0:
            fail(f"{dump}: no such file or directory")


def tagged_lines(spark, dumps):
    """The dumps' lines as `FILE<TAB>FIRST<TAB>LINE`, FIRST the number of the first line of
    the line's split (see `winnow scan --tagged`)."""
    from pyspark.sql import functions as F

    lines = spark.read.option("lineSep", "\n").text(dumps).select(
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("start"),
        (F.col("_metadata.file_block_length") < F.col("_metadata.file_size")).alias("split"),
        F.col("value"),
    )
    # Lines in each split of the files Spark splits; a split's first line follows the lines of
    # the splits before it in its file.
    counts = lines.where("split").groupBy("file", "start").count().collect()
    firsts, next_line = [], {}
    for row in sorted(counts, key=lambda row: (row["file"], row["start"])):
        first = next_line.get(row["file"], 1)
        firsts.append((row["file"], row["start"], first))
        next_line[row["file"]] = first + row["count"]
    if firsts:
        # A table made in the JVM (createDataFrame of Python rows starts a Python worker).
        def quoted(text):
            return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"

        rows = ", ".join(f"({quoted(file)}, {start}L, {first}L)" for file, start, first in firsts)
        table = spark.sql(f"SELECT * FROM VALUES {rows} AS firsts(file, start, first)")
        lines = lines.join(F.broadcast(table), ["file", "start"], "left")
        first = F.coalesce(F.col("first"), F.lit(1))
    else:
        first = F.lit(1)
    return lines.select(F.concat_ws("\t", F.col("file"), first.cast("string"), F.col("value")).alias("value"))


def merge_offenders(jvm, sc, settings, passed, lines):
    """Merges the tasks' offenders lines with `winnow offenders --json` and writes the file to
    --offenders (any path Spark writes)."""
    directory = tempfile.mkdtemp(prefix="winnow-offenders-")
    parts = os.path.join(directory, "parts.jsonl")
    with open(parts, "w", encoding="utf-8") as file:
        file.write("".join(line + "\n" for line in lines))
    merged = os.path.join(directory, "offenders.jsonl")
    policy = [argument for name, value in passed if name == "--policy" for argument in ("--policy", value)]
    local_winnow = shutil.which(settings["winnow"]) or settings["winnow"]
    done = subprocess.run([local_winnow, "offenders", "--top", "1", "--json", merged] + policy + [parts],
                          stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        fail("cannot merge the partitions' offenders")
    target = jvm.org.apache.hadoop.fs.Path(settings["offenders"])
    target.getFileSystem(sc._jsc.hadoopConfiguration()).copyFromLocalFile(
        True, True, jvm.org.apache.hadoop.fs.Path(merged), target
    )
    shutil.rmtree(directory, ignore_errors=True)


def main(argv):
    settings, passed, dumps = parse(argv)
    from pyspark import StorageLevel
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F

    spark = SparkSession.builder.appName("winnow scan").getOrCreate()
    sc = spark.sparkContext
    jvm = sc._jvm
    output_path = jvm.org.apache.hadoop.fs.Path(settings["output"])
    if output_path.getFileSystem(sc._jsc.hadoopConfiguration()).exists(output_path):
        fail(f"--output {settings['output']} exists: give a new directory")
    check_paths(spark, dumps)
    if any(name == "--policy" for name, _ in passed) and not settings["offenders"]:
        fail("--policy applies to --offenders: give both", 64)
    command = ship(sc, settings, passed)

    strings = jvm.org.apache.spark.sql.Encoders.STRING()
    tagged = getattr(tagged_lines(spark, dumps)._jdf, "as")(strings).javaRDD()
    # In the JVM, in order, one process a partition, UTF-8 both ways.
    piped = tagged.pipe(command, {}, False, 1 << 16, "UTF-8")
    out = DataFrame(spark._jsparkSession.createDataset(piped.rdd(), strings).toDF(), spark)
    out.persist(StorageLevel.MEMORY_AND_DISK)
    is_summary = F.col("value").startswith('{"summary":')
    is_offender = F.col("value").startswith('{"offender":')
    summaries = [row["value"] for row in out.where(is_summary).collect()]
    # Each task's offenders, one line a sender of its lines: a sender of several partitions has
    # a line in each, merged below.
    offenders = [row["value"] for row in out.where(is_offender).collect()] if settings["offenders"] else []
    results = out.where(~is_summary & ~is_offender)
    if settings["format"] == "parquet":
        typed = spark._jsparkSession.read().json(getattr(results._jdf, "as")(strings))
        DataFrame(typed, spark).write.parquet(settings["output"])
    else:
        results.write.text(settings["output"])
    out.unpersist()

    if not summaries:
        # No partitions (empty dumps): the summary of a scan of nothing.
        local_winnow = shutil.which(settings["winnow"]) or settings["winnow"]
        empty = subprocess.run(
            [local_winnow, "scan", "--tagged", "--quiet", "--summary-json", "-", "-"], input=b"", capture_output=True
        )
        summaries = [line for line in empty.stdout.decode().splitlines() if line.startswith('{"summary":')]
    # The summary of the whole run, added up and printed by winnow itself.
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as parts:
        parts.write("\n".join(summaries) + "\n")
    summary_file = os.path.join(tempfile.mkdtemp(prefix="winnow-summary-"), "_summary.json")
    status = subprocess.run(
        [shutil.which(settings["winnow"]) or settings["winnow"], "summary", "--json", summary_file, parts.name]
    ).returncode
    os.unlink(parts.name)
    if status not in (0, 1, 3):
        fail("cannot add up the partitions' summaries")
    target = jvm.org.apache.hadoop.fs.Path(settings["output"] + "/_summary.json")
    target.getFileSystem(sc._jsc.hadoopConfiguration()).copyFromLocalFile(
        True, True, jvm.org.apache.hadoop.fs.Path(summary_file), target
    )
    if settings["offenders"]:
        merge_offenders(jvm, sc, settings, passed, offenders)
    spark.stop()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
