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
/// is not a UTF-8 continuation byte and either the prefix table or the gate passes the eight
/// bytes at `block + k`, read little-endian as `v`, exactly as the Swift code tests them with
/// `m = multiplier`:
/// - the prefix table: bit `(v >> 32) & 63` of `prefix[((v & 0xFFFFFFFF) * m) >> prefix_shift]`;
/// - the gate, when `gate` is not null: bit `(v >> 16) & 63` of
///   `gate[((v & 0xFFFF) * m) >> 54]`;
/// - the one-byte patterns, when `singles` is not null: bit `v & 63` of `singles[(v & 0xFF) >> 6]`.
///
/// The bits past those positions are zero. `block` must be readable for 72 bytes;
/// `prefix_shift` is between 48 and 58, so that an index stays inside the caller's table.
uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier);

/// `winnow_filter_prefix_pass` with AVX-512 (eight positions a register); the same bits. Call
/// it only when `winnow_filter_vector_level()` is 2.
uint64_t winnow_filter_prefix_pass_wide(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier);

#endif
