#ifndef CWINNOWSTARTUP_H
#define CWINNOWSTARTUP_H

/// Referenced from Swift so that the linker keeps this object file, and its constructor, in
/// the executable.
int winnow_startup_linked(void);

#endif
