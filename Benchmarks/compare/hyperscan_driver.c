// Hyperscan peer for compare.py: compiles the patterns as literals (hs_compile_lit_multi, no
// start of match) and counts every match of every pattern, over the whole corpus and one line
// at a time. Prints one JSON object. Build: cc -O2 hyperscan_driver.c -lhs -o hyperscan_driver
#include <hs/hs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc(*size + 1);
  if (fread(data, 1, *size, f) != *size) { perror(path); exit(2); }
  fclose(f);
  data[*size] = 0;
  return data;
}

static int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *context) {
  (void)id; (void)from; (void)to; (void)flags;
  ++*(unsigned long long *)context;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s PATTERNS CORPUS\n", argv[0]); return 2; }
  size_t patterns_size, corpus_size;
  char *patterns = slurp(argv[1], &patterns_size);
  char *corpus = slurp(argv[2], &corpus_size);
  size_t count = 0;
  for (size_t i = 0; i < patterns_size; i++) count += patterns[i] == '\n';
  const char **expressions = malloc(count * sizeof *expressions);
  size_t *lengths = malloc(count * sizeof *lengths);
  unsigned *flags = malloc(count * sizeof *flags);
  unsigned *ids = malloc(count * sizeof *ids);
  size_t n = 0;
  for (char *line = patterns; n < count;) {
    char *end = strchr(line, '\n');
    expressions[n] = line;
    lengths[n] = (size_t)(end - line);
    flags[n] = 0;
    ids[n] = (unsigned)n;
    n++;
    line = end + 1;
  }
  hs_database_t *database;
  hs_compile_error_t *error;
  double start = now();
  if (hs_compile_lit_multi(expressions, flags, ids, lengths, (unsigned)n, HS_MODE_BLOCK, NULL, &database, &error) != HS_SUCCESS) {
    fprintf(stderr, "hyperscan: %s\n", error->message);
    return 2;
  }
  double build = now() - start;
  hs_scratch_t *scratch = NULL;
  hs_alloc_scratch(database, &scratch);
  size_t database_size = 0;
  hs_database_size(database, &database_size);
  unsigned long long whole = 0;
  start = now();
  hs_scan(database, corpus, (unsigned)corpus_size, 0, scratch, on_match, &whole);
  double whole_seconds = now() - start;
  unsigned long long per_line = 0, messages = 0;
  start = now();
  for (char *line = corpus; line < corpus + corpus_size;) {
    char *end = memchr(line, '\n', (size_t)(corpus + corpus_size - line));
    if (!end) end = corpus + corpus_size;
    if (end > line) {
      hs_scan(database, line, (unsigned)(end - line), 0, scratch, on_match, &per_line);
      messages++;
    }
    line = end + 1;
  }
  double line_seconds = now() - start;
  printf("{\"patterns\":%zu,\"build_seconds\":%f,\"scan_seconds\":%f,\"matches\":%llu,"
         "\"line_seconds\":%f,\"messages\":%llu,\"line_matches\":%llu,\"bytes\":%zu,\"database_bytes\":%zu}\n",
         n, build, whole_seconds, whole, line_seconds, messages, per_line, corpus_size, database_size);
  return 0;
}
