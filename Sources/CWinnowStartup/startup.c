// Two settings made before the Swift runtime and `main`, as soon as the program's own code runs.
#include <signal.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "CWinnowStartup.h"

static int winnow_is_serve(int argc, char **argv) {
  return argc > 1 && argv != NULL && argv[1] != NULL && strcmp(argv[1], "serve") == 0;
}

// `winnow serve` reloads its lists on SIGHUP, whose default action ends the process: this
// ignores SIGHUP for `serve`, so that a reload asked for while the server starts (a
// deployment's `kill -HUP` right after launch) never kills it. The server traps SIGHUP once it
// can reload; one sent before then finds the lists being loaded afresh anyway.
__attribute__((constructor)) static void winnow_ignore_sighup_for_serve(int argc, char **argv, char **envp) {
  (void)envp;
  if (winnow_is_serve(argc, argv)) {
    signal(SIGHUP, SIG_IGN);
  }
}

// Every other command runs once and ends: glibc's allocator is told to serve blocks below
// 32 MiB from its heap and to keep what is freed there, rather than map each large block
// afresh and unmap it when freed (its default above 128 KiB, a threshold it raises as such
// blocks are freed). Reading the compiled lists allocates and frees tens of megabytes of
// tables and scratch arrays; on the heap, a freed block's pages are used again without a
// page fault. A long-running server keeps glibc's defaults, which give memory back.
__attribute__((constructor)) static void winnow_keep_freed_memory_for_commands(int argc, char **argv, char **envp) {
  (void)envp;
#if defined(__GLIBC__)
  if (!winnow_is_serve(argc, argv)) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  }
#else
  (void)argc;
  (void)argv;
#endif
}

int winnow_startup_linked(void) { return 1; }
