// The raw start filter's first stage with vector instructions (see include/CWinnowFilter.h).
// Swift's SIMD types do not expose byte shuffles, and the intrinsics need the target feature on
// the function, which a Swift module can only get from an unsafe flag; hence this file, whose
// vector functions carry the attribute and are called only after a run-time check.

#include "CWinnowFilter.h"

#include <string.h>

// The calling thread's scan workspace (`winnow_thread_workspace` in the header).
_Thread_local void *winnow_thread_workspace_pointer = 0;

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int winnow_filter_vector_level(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  // OSXSAVE (27) and AVX (28): the system saves the vector registers it reports in XCR0.
  if ((ecx & (1u << 27)) == 0 || (ecx & (1u << 28)) == 0) return 0;
  unsigned int xcr0_low, xcr0_high;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  if ((xcr0_low & 6u) != 6u) return 0;  // SSE and AVX state
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  // AVX2 (5), BMI1 (3) and BMI2 (8): the loop over lead bytes shifts by a register.
  const unsigned int narrow = (1u << 5) | (1u << 3) | (1u << 8);
  if ((ebx & narrow) != narrow) return 0;
  // AVX512F (16), AVX512DQ (17), AVX512BW (30), and the opmask and ZMM state (XCR0 5 to 7).
  const unsigned int wide = (1u << 16) | (1u << 17) | (1u << 30);
  return (ebx & wide) == wide && (xcr0_low & 0xE0u) == 0xE0u ? 2 : 1;
}

// Bit k of the result for each lead byte k (bit k of `leads`) where the prefix table or the
// gate passes, from the word indices the vector code computed for every position: the table
// words are read one position at a time. Gathers (`vpgatherqq`), which fetched them four or
// eight at once, were slower than these plain loads on the processors measured
// (Benchmarks/HISTORY.md).
static inline __attribute__((always_inline)) uint64_t read_tables(
  const uint8_t *block, uint64_t leads, const uint64_t *prefix, const uint64_t *prefix_index, const uint64_t *gate,
  const uint64_t *gate_index, const uint64_t *singles) {
  uint64_t passed = 0;
  while (leads != 0) {
    const int k = __builtin_ctzll(leads);
    leads &= leads - 1;
    uint64_t found = prefix[prefix_index[k]] >> (block[k + 4] & 63);
    if (gate != 0) found |= gate[gate_index[k]] >> (block[k + 2] & 63);
    if (singles != 0) found |= singles[block[k] >> 6] >> (block[k] & 63);
    passed |= (found & 1) << k;
  }
  return passed;
}

// The first `positions` bits of `~skipped`: the lead bytes the stage tests (`skipped` has the
// continuation bytes, and the spaces when the caller skips them).
static inline uint64_t leads_of(uint64_t skipped, int positions) {
  return ~skipped & (positions < 64 ? (1ull << positions) - 1 : ~0ull);
}

// The low 64 bits of `key * multiplier` per lane, for keys of at most 32 bits: AVX2 multiplies
// only 32 by 32 bits, so the multiplier's two halves are multiplied apart.
__attribute__((target("avx2"))) static inline __m256i product(__m256i key, __m256i low, __m256i high) {
  return _mm256_add_epi64(_mm256_mul_epu32(key, low), _mm256_slli_epi64(_mm256_mul_epu32(key, high), 32));
}

__attribute__((target("avx2,bmi,bmi2"))) uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier, int skip_spaces) {
  const uint8_t *bytes = (const uint8_t *)block;
  const __m256i low = _mm256_set1_epi64x((long long)(multiplier & 0xFFFFFFFFu));
  const __m256i high = _mm256_set1_epi64x((long long)(multiplier >> 32));
  const __m128i shift = _mm_cvtsi64_si128((long long)prefix_shift);
  const __m256i mask32 = _mm256_set1_epi64x(0xFFFFFFFFll);
  const __m256i mask16 = _mm256_set1_epi64x(0xFFFFll);
  // Positions 0 to 3 and 4 to 7 of sixteen bytes, each the eight bytes from there: a lane of
  // 128 bits holds two positions.
  const __m256i first = _mm256_setr_epi8(
    0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9, 3, 4, 5, 6, 7, 8, 9, 10);
  const __m256i second = _mm256_setr_epi8(
    4, 5, 6, 7, 8, 9, 10, 11, 5, 6, 7, 8, 9, 10, 11, 12, 6, 7, 8, 9, 10, 11, 12, 13, 7, 8, 9, 10, 11, 12, 13, 14);
  // Continuation bytes: 10xxxxxx.
  const __m256i top = _mm256_set1_epi8((char)0xC0);
  const __m256i continuation = _mm256_set1_epi8((char)0x80);
  const __m256i low_bytes = _mm256_loadu_si256((const __m256i *)bytes);
  const __m256i high_bytes = _mm256_loadu_si256((const __m256i *)(bytes + 32));
  const uint64_t continuations =
    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(low_bytes, top), continuation))
    | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(high_bytes, top), continuation))
        << 32;
  uint64_t spaces = 0;
  if (skip_spaces) {
    const __m256i space = _mm256_set1_epi8(0x20);
    spaces = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low_bytes, space))
      | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high_bytes, space)) << 32;
  }
  const uint64_t leads = leads_of(continuations | spaces, positions);
  uint64_t prefix_index[64] __attribute__((aligned(32)));
  uint64_t gate_index[64] __attribute__((aligned(32)));
  for (int offset = 0; offset < positions; offset += 8) {
    const __m256i sixteen = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(bytes + offset)));
    for (int half = 0; half < 2; half++) {
      const __m256i value = _mm256_shuffle_epi8(sixteen, half == 0 ? first : second);
      _mm256_store_si256(
        (__m256i *)(prefix_index + offset + 4 * half),
        _mm256_srl_epi64(product(_mm256_and_si256(value, mask32), low, high), shift));
      _mm256_store_si256(
        (__m256i *)(gate_index + offset + 4 * half),
        _mm256_srli_epi64(product(_mm256_and_si256(value, mask16), low, high), 54));
    }
  }
  return read_tables(bytes, leads, prefix, prefix_index, gate, gate_index, singles);
}

__attribute__((target("avx512f,avx512bw,avx512dq,bmi,bmi2"))) uint64_t winnow_filter_prefix_pass_wide(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier, int skip_spaces) {
  const uint8_t *bytes = (const uint8_t *)block;
  const __m512i factor = _mm512_set1_epi64((long long)multiplier);
  const __m128i shift = _mm_cvtsi64_si128((long long)prefix_shift);
  const __m512i mask32 = _mm512_set1_epi64(0xFFFFFFFFll);
  const __m512i mask16 = _mm512_set1_epi64(0xFFFFll);
  // Positions 2k and 2k + 1 of sixteen bytes in lane k of 128 bits, each the eight bytes from
  // there (`_mm512_set_epi8` lists the bytes from the last).
  const __m512i order = _mm512_set_epi8(
    14, 13, 12, 11, 10, 9, 8, 7, 13, 12, 11, 10, 9, 8, 7, 6, 12, 11, 10, 9, 8, 7, 6, 5, 11, 10, 9, 8, 7, 6, 5, 4, 10,
    9, 8, 7, 6, 5, 4, 3, 9, 8, 7, 6, 5, 4, 3, 2, 8, 7, 6, 5, 4, 3, 2, 1, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i all = _mm512_loadu_si512(block);
  const uint64_t continuations =
    _mm512_cmpeq_epi8_mask(_mm512_and_si512(all, _mm512_set1_epi8((char)0xC0)), _mm512_set1_epi8((char)0x80));
  const uint64_t spaces = skip_spaces ? _mm512_cmpeq_epi8_mask(all, _mm512_set1_epi8(0x20)) : 0;
  const uint64_t leads = leads_of(continuations | spaces, positions);
  uint64_t prefix_index[64] __attribute__((aligned(64)));
  uint64_t gate_index[64] __attribute__((aligned(64)));
  for (int offset = 0; offset < positions; offset += 8) {
    const __m512i value = _mm512_shuffle_epi8(
      _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(bytes + offset))), order);
    _mm512_store_si512(
      (__m512i *)(prefix_index + offset),
      _mm512_srl_epi64(_mm512_mullo_epi64(_mm512_and_si512(value, mask32), factor), shift));
    _mm512_store_si512(
      (__m512i *)(gate_index + offset), _mm512_srli_epi64(_mm512_mullo_epi64(_mm512_and_si512(value, mask16), factor), 54));
  }
  return read_tables(bytes, leads, prefix, prefix_index, gate, gate_index, singles);
}

int winnow_ascii_words_available(void) {
  // The wide first stage's checks (AVX-512 F, BW and DQ, BMI1 and BMI2, the registers saved),
  // then what the word step uses besides.
  if (winnow_filter_vector_level() < 2) return 0;
  unsigned int eax, ebx, ecx, edx;
  // POPCNT (leaf 1, ecx 23).
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || (ecx & (1u << 23)) == 0) return 0;
  // AVX512VL (leaf 7, ebx 31), AVX512_VBMI (ecx 1) and AVX512_VBMI2 (ecx 6).
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  if ((ebx & (1u << 31)) == 0 || (ecx & (1u << 1)) == 0 || (ecx & (1u << 6)) == 0) return 0;
  // LZCNT (extended leaf 0x80000001, ecx 5).
  if (!__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) || (ecx & (1u << 5)) == 0) return 0;
  return 1;
}

// Dword indices into two vectors (0 to 15 the first, 16 to 31 the second) that lay sixteen
// records out from their starts (first vector) and ends (second), three dwords a record, the
// third left for the run and flags; and which dwords of each output vector are that third.
static const uint32_t record_fields[48] __attribute__((aligned(64))) = {
  0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5,
  21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26,
  0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0};
static const uint32_t record_runs[48] __attribute__((aligned(64))) = {
  0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0,
  0, 5, 0, 0, 6, 0, 0, 7, 0, 0, 8, 0, 0, 9, 0, 0,
  10, 0, 0, 11, 0, 0, 12, 0, 0, 13, 0, 0, 14, 0, 0, 15};
static const __mmask16 record_run_lanes[3] = {0x4924, 0x2492, 0x9249};

// Sixteen units' records (starts, ends, runs with flags, one vector each) to `records`.
__attribute__((target("avx512f"))) static inline void write_records(
  uint8_t *records, __m512i starts, __m512i ends, __m512i runs) {
  for (int k = 0; k < 3; k++) {
    const __m512i fields = _mm512_permutex2var_epi32(
      starts, _mm512_load_si512((const void *)(record_fields + 16 * k)), ends);
    _mm512_storeu_si512(
      (void *)(records + 64 * k),
      _mm512_mask_permutexvar_epi32(
        fields, record_run_lanes[k], _mm512_load_si512((const void *)(record_runs + 16 * k)), runs));
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt"))) int
winnow_ascii_words(
  const uint8_t *bytes, const struct winnow_ascii_words_setup *setup, int32_t start, int32_t token_length,
  uint32_t *scalars, void *infos, struct winnow_ascii_words_taken *taken) {
  const __m256i fold = _mm256_set1_epi8((char)setup->case_bit);
  const __m256i raw = _mm256_loadu_si256((const __m256i *)bytes);
  const __m256i here = _mm256_or_si256(raw, fold);
  const __m256i before = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(bytes - 1)), fold);
  const __m256i a = _mm256_set1_epi8(0x61);
  const __m256i z = _mm256_set1_epi8(25);
  const uint64_t letters = _mm256_cmple_epu8_mask(_mm256_sub_epi8(here, a), z);
  // Bit k: byte k - 1 (and k - 2) is a letter, from the two bytes before as well.
  const uint64_t first_before = (uint8_t)((bytes[-1] | setup->case_bit) - 0x61) < 26;
  const uint64_t second_before = (uint8_t)((bytes[-2] | setup->case_bit) - 0x61) < 26;
  const uint64_t after_letter = letters << 1 | first_before;
  const uint64_t after_two = after_letter << 1 | second_before;
  uint64_t repeats = 0;
  if (setup->merges) repeats = letters & after_letter & _mm256_cmpeq_epi8_mask(here, before);
  uint64_t separators = 0;
  if (setup->collapses) {
    // The plain separators: ASCII bytes (the table's low seven bits index it) that fold to one.
    const __m512i low = _mm512_loadu_si512((const void *)setup->separators);
    const __m512i high = _mm512_loadu_si512((const void *)(setup->separators + 64));
    const __m512i classes = _mm512_permutex2var_epi8(low, _mm512_zextsi256_si512(raw), high);
    separators = (uint32_t)_mm512_test_epi8_mask(classes, classes) & ~(uint64_t)_mm256_movepi8_mask(raw);
  }
  const uint64_t run_starts = separators & ~(separators << 1);
  // A run of separators after a word of fewer than two letters is left to the caller, and so
  // is a repeat of the unit before the sixteen bytes.
  const uint64_t stops = (~(letters | separators) & 0xFFFFFFFFull) | (run_starts & ~(after_letter & after_two))
    | (repeats & 1) | (1ull << 32);
  const int limit = __builtin_ctzll(stops);
  // The prefix ends after a letter: a run of separators at its end is left for the next call.
  const uint64_t letters_in = letters & ((1ull << limit) - 1);
  if (letters_in == 0) return 0;
  const int count = 64 - __builtin_clzll(letters_in);
  const uint64_t prefix = (1ull << count) - 1;
  const uint32_t kept = (uint32_t)(((letters & ~repeats) | run_starts) & prefix);
  // The byte before each unit's first byte (and the prefix's last): where units end.
  const uint32_t ends = (uint32_t)(((uint64_t)kept >> 1 | 1ull << (count - 1)) & prefix);
  const int units = __builtin_popcount(kept);
  const uint32_t separator_units = _pext_u32((uint32_t)(run_starts & prefix), kept);
  const __m256i space = _mm256_set1_epi8(0x20);
  const __m256i values = _mm256_maskz_compress_epi8(kept, _mm256_mask_blend_epi8((__mmask32)separators, here, space));
  const __m256i offsets = _mm256_setr_epi8(
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  const __m256i firsts = _mm256_maskz_compress_epi8(kept, offsets);
  const __m256i lasts = _mm256_maskz_compress_epi8(ends, _mm256_add_epi8(offsets, _mm256_set1_epi8(1)));
  const __m512i base = _mm512_set1_epi32(start);
  const __m512i letter_flags = _mm512_set1_epi32((int)((uint32_t)setup->letter << 16));
  const __m512i separator_run = _mm512_set1_epi32((int)(1u | (uint32_t)setup->separator << 16));
  uint8_t *records = (uint8_t *)infos;
  for (int half = 0; half < 2 && 16 * half < units; half++) {
    const __m128i value_bytes = half == 0 ? _mm256_castsi256_si128(values) : _mm256_extracti128_si256(values, 1);
    const __m128i first_bytes = half == 0 ? _mm256_castsi256_si128(firsts) : _mm256_extracti128_si256(firsts, 1);
    const __m128i last_bytes = half == 0 ? _mm256_castsi256_si128(lasts) : _mm256_extracti128_si256(lasts, 1);
    _mm512_storeu_si512((void *)(scalars + 16 * half), _mm512_cvtepu8_epi32(value_bytes));
    const __m512i unit_starts = _mm512_cvtepu8_epi32(first_bytes);
    const __m512i unit_ends = _mm512_cvtepu8_epi32(last_bytes);
    // A letter's run is its length (it and its repeats); a separator's is 1.
    const __m512i runs = _mm512_mask_mov_epi32(
      _mm512_or_si512(_mm512_sub_epi32(unit_ends, unit_starts), letter_flags), (__mmask16)(separator_units >> (16 * half)),
      separator_run);
    write_records(
      records + 192 * half, _mm512_add_epi32(unit_starts, base), _mm512_add_epi32(unit_ends, base), runs);
  }
  taken->bytes = count;
  taken->units = units;
  const uint64_t starts_in = run_starts & prefix;
  if (starts_in == 0) {
    taken->token_length = token_length + count;
    taken->ended_token_length = 0;
    taken->gap = 0;
  } else {
    // The last run, from its start to the letter after it, and the word before it.
    const int last_start = 63 - __builtin_clzll(starts_in);
    const int last_end = __builtin_ctzll(letters & ~((2ull << last_start) - 1));
    const uint64_t earlier = starts_in & ~(1ull << last_start);
    int word_start = 0;
    int ended = token_length;
    if (earlier != 0) {
      const int earlier_start = 63 - __builtin_clzll(earlier);
      word_start = __builtin_ctzll(letters & ~((2ull << earlier_start) - 1));
      ended = 0;
    }
    taken->token_length = count - last_end;
    taken->ended_token_length = ended + last_start - word_start;
    taken->gap = last_end - last_start;
  }
  return units;
}

__attribute__((target("avx512f"))) uint64_t winnow_repeated_units_wide(const void *infos, long count) {
  // Three dwords a record, the run in the low half of the third: sixteen records are 48
  // dwords, three vectors, read with masks past the last record.
  const uint32_t *words = (const uint32_t *)infos;
  // Records 0 to 9 from the first two vectors, then 10 to 15 from the third.
  const __m512i gather = _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0);
  const __m512i merge = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31);
  const __m512i low = _mm512_set1_epi32(0xFFFF);
  const __m512i one = _mm512_set1_epi32(1);
  uint64_t result = 0;
  for (long group = 0; group < count && group < 64; group += 16) {
    const long left = 3 * (count - group);
    const __mmask16 first = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
    const __mmask16 second = left >= 32 ? 0xFFFF : left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1);
    const __mmask16 third = left >= 48 ? 0xFFFF : left <= 32 ? 0 : (__mmask16)((1u << (left - 32)) - 1);
    const uint32_t *at = words + 3 * group;
    const __m512i a = _mm512_maskz_loadu_epi32(first, at);
    const __m512i b = _mm512_maskz_loadu_epi32(second, at + 16);
    const __m512i c = _mm512_maskz_loadu_epi32(third, at + 32);
    const __m512i runs = _mm512_permutex2var_epi32(_mm512_permutex2var_epi32(a, gather, b), merge, c);
    result |= (uint64_t)_mm512_cmpgt_epu32_mask(_mm512_and_si512(runs, low), one) << group;
  }
  return result;
}

#else

int winnow_filter_vector_level(void) { return 0; }

int winnow_ascii_words_available(void) { return 0; }

uint64_t winnow_repeated_units_wide(const void *infos, long count) { return winnow_repeated_units(infos, count); }

int winnow_ascii_words(
  const uint8_t *bytes, const struct winnow_ascii_words_setup *setup, int32_t start, int32_t token_length,
  uint32_t *scalars, void *infos, struct winnow_ascii_words_taken *taken) {
  (void)bytes;
  (void)setup;
  (void)start;
  (void)token_length;
  (void)scalars;
  (void)infos;
  (void)taken;
  return 0;
}

#endif

// Portable C: SSE2 on x86-64 (its baseline, so no run-time check), a plain loop elsewhere.
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

int winnow_narrow_ascii(const uint32_t *scalars, long count, uint8_t *bytes) {
  long index = 0;
#if defined(__x86_64__)
  const __m128i high = _mm_set1_epi32((int)0xFFFFFF80u);
  for (; index + 16 <= count; index += 16) {
    const __m128i a = _mm_loadu_si128((const __m128i *)(scalars + index));
    const __m128i b = _mm_loadu_si128((const __m128i *)(scalars + index + 4));
    const __m128i c = _mm_loadu_si128((const __m128i *)(scalars + index + 8));
    const __m128i d = _mm_loadu_si128((const __m128i *)(scalars + index + 12));
    const __m128i all = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(all, high), _mm_setzero_si128())) != 0xFFFF) return 0;
    // Every value is below 0x80: the signed packs keep it.
    _mm_storeu_si128(
      (__m128i *)(bytes + index), _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
  }
#endif
  for (; index < count; index++) {
    if (scalars[index] >= 0x80) return 0;
    bytes[index] = (uint8_t)scalars[index];
  }
  return 1;
}

uint64_t winnow_repeated_units(const void *infos, long count) {
  const uint8_t *records = (const uint8_t *)infos;
  uint64_t result = 0;
  for (long unit = 0; unit < count && unit < 64; unit++) {
    uint16_t run;
    memcpy(&run, records + 12 * unit + 8, sizeof run);
    result |= (uint64_t)(run > 1) << unit;
  }
  return result;
}
