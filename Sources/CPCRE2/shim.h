#ifndef WINNOW_CPCRE2_SHIM_H
#define WINNOW_CPCRE2_SHIM_H
// PCRE2's API is generic over the code unit width; Winnow matches UTF-8 only.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
