#ifndef CWINNOWFILTER_H
#define CWINNOWFILTER_H

#include <stdint.h>

/// Which of the vector first stages can run here: 0 none, 1 `winnow_filter_prefix_pass` (an
/// x86-64 processor with AVX2, BMI1 and BMI2, and an operating system that saves the 256-bit
/// registers), 2 that and `winnow_filter_prefix_pass_wide` too (AVX-512 F, BW and DQ, and the
/// system saves the 512-bit registers and masks). Asks the processor once per call, so callers
/// keep the answer.
int winnow_filter_vector_level(void);

/// The first stage of Winnow's raw start filter (`StartFilter`) at up to 64 positions at
/// once, with AVX2; call it only when `winnow_filter_vector_level()` is at least 1.
///
/// Bit `k` of the result, for `k` below `positions` (1 to 64), is set when byte `k` of `block`
/// is not a UTF-8 continuation byte, nor a space (0x20) when `skip_spaces` is nonzero, and
/// either the prefix table or the gate passes the eight bytes at `block + k`, read
/// little-endian as `v`, exactly as the Swift code tests them with `m = multiplier`:
/// - the prefix table: bit `(v >> 32) & 63` of `prefix[((v & 0xFFFFFFFF) * m) >> prefix_shift]`;
/// - the gate, when `gate` is not null: bit `(v >> 16) & 63` of
///   `gate[((v & 0xFFFF) * m) >> 54]`;
/// - the one-byte patterns, when `singles` is not null: bit `v & 63` of `singles[(v & 0xFF) >> 6]`.
///
/// The bits past those positions are zero. `block` must be readable for 72 bytes;
/// `prefix_shift` is between 48 and 58, so that an index stays inside the caller's table.
uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier, int skip_spaces);

/// `winnow_filter_prefix_pass` with AVX-512 (eight positions a register); the same bits. Call
/// it only when `winnow_filter_vector_level()` is 2.
uint64_t winnow_filter_prefix_pass_wide(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier, int skip_spaces);

/// Whether `winnow_ascii_words` can run here: an x86-64 processor with AVX-512 F, BW, DQ, VL, VBMI
/// and VBMI2, BMI1, BMI2, LZCNT and POPCNT, and an operating system that saves its registers.
/// Asks the processor once per call, so callers keep the answer.
int winnow_ascii_words_available(void);

/// What `winnow_ascii_words` needs to know of the normalization rules.
struct winnow_ascii_words_setup {
  /// Nonzero for each ASCII byte that folds to one separator unit, and zero for every other
  /// (letters, digits, apostrophes, `@ $ !` read as look-alikes, bytes that fold to nothing).
  uint8_t separators[128];
  /// 0x20 where uppercase ASCII letters fold to lowercase, else 0.
  uint8_t case_bit;
  /// Nonzero where repeated letters merge into one unit.
  uint8_t merges;
  /// Nonzero where a run of separators collapses into one unit.
  uint8_t collapses;
  /// The flags of a letter unit and of a separator unit.
  uint8_t letter;
  uint8_t separator;
};

/// What a call took: bytes and units, and the token state after them.
struct winnow_ascii_words_taken {
  int32_t bytes;
  int32_t units;
  /// The letters of the word being read after the bytes taken (the word the caller was in,
  /// lengthened, when no run of separators was taken).
  int32_t token_length;
  /// The letters of the word before the last run of separators taken, and that run's length;
  /// both 0 when no run was taken.
  int32_t ended_token_length;
  int32_t gap;
};

/// The units that Winnow's one-pass normalizer (`SinglePassShaper.takeASCIIWords`) writes for
/// the run of ASCII words at `bytes`, up to 32 bytes at a time; call it only when
/// `winnow_ascii_words_available()` is 1, inside a word of letters (`bytes[-1]` is one).
///
/// Of the 32 bytes from `bytes` it takes the longest prefix that ends with a letter (`byte |
/// case_bit` a lowercase ASCII letter) and holds only letters and runs of separators, where
/// neither the first byte repeats `bytes[-1]` (under `merges`) nor a run of separators follows
/// a word of fewer than two letters (`bytes[-2]` and `bytes[-1]` count). It writes the prefix's
/// units as the normalizer does: a letter with the letters that repeat it (under `merges`) is
/// one unit of the lowercase letter, its run the number of them; a run of separators (under
/// `collapses`) one unit 0x20 of run 1 spanning the run. Unit `k` goes to `scalars[k]` and to
/// the `k`-th 12-byte record of `infos` (Int32 start and end, `start` plus the byte offsets;
/// UInt16 run; UInt8 flags). It returns the number of units, 0 when it takes nothing (then
/// `*taken` is not written), and may write up to 32 units whatever it returns.
/// `token_length` is the letters of the word being read before `bytes`. `bytes - 2` to
/// `bytes + 31` must be readable, and `start + 32` must not overflow an Int32.
int winnow_ascii_words(
  const uint8_t *bytes, const struct winnow_ascii_words_setup *setup, int32_t start, int32_t token_length,
  uint32_t *scalars, void *infos, struct winnow_ascii_words_taken *taken);

/// Writes the low byte of each of the `count` scalars at `scalars` to `bytes` and returns 1
/// when every scalar is below 0x80 (ASCII); returns 0 when one is not, possibly before reading
/// them all (`bytes` then partly written). Sixteen scalars a step with SSE2 on x86-64.
int winnow_narrow_ascii(const uint32_t *scalars, long count, uint8_t *bytes);

/// Bit `k` set for each of the first `count` (at most 64) of Winnow's unit records at `infos`
/// (`NormalizedText.UnitInfo`: two Int32, then a UInt16 run, twelve bytes a record) whose run
/// is above 1: the units that stand for a repeated letter. `winnow_repeated_units_wide` does the
/// same sixteen records a step with AVX-512 F, which the machine must have; records past
/// `count` are not read.
uint64_t winnow_repeated_units(const void *infos, long count);
uint64_t winnow_repeated_units_wide(const void *infos, long count);

/// The calling thread's scan workspace (Swift's `ThreadWorkspace`), null until the thread's first
/// scan sets it: a variable of the thread's own, read without a call. (A pthread key cost a
/// call, and Swift's lazy global for the key a check, on every scan.)
static inline void *winnow_thread_workspace(void) {
  extern _Thread_local void *winnow_thread_workspace_pointer;
  return winnow_thread_workspace_pointer;
}

/// Sets the calling thread's scan workspace (see `winnow_thread_workspace`).
static inline void winnow_set_thread_workspace(void *workspace) {
  extern _Thread_local void *winnow_thread_workspace_pointer;
  winnow_thread_workspace_pointer = workspace;
}

#endif
