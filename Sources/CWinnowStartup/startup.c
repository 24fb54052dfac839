// `winnow serve` reloads its lists on SIGHUP, whose default action ends the process. This
// constructor runs before the Swift runtime and `main`, as soon as the program's own code
// runs: it ignores SIGHUP for `serve`, so that a reload asked for while the server starts
// (a deployment's `kill -HUP` right after launch) never kills it. The server traps SIGHUP
// once it can reload; one sent before then finds the lists being loaded afresh anyway.
#include <signal.h>
#include <string.h>
#include "CWinnowStartup.h"

__attribute__((constructor)) static void winnow_ignore_sighup_for_serve(int argc, char **argv, char **envp) {
  (void)envp;
  if (argc > 1 && argv != NULL && argv[1] != NULL && strcmp(argv[1], "serve") == 0) {
    signal(SIGHUP, SIG_IGN);
  }
}

int winnow_startup_linked(void) { return 1; }
