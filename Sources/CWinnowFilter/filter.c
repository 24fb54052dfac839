// The raw start filter's first stage with vector instructions (see include/CWinnowFilter.h).
// Swift's SIMD types do not expose byte shuffles, and the intrinsics need the target feature on
// the function, which a Swift module can only get from an unsafe flag; hence this file, whose
// vector functions carry the attribute and are called only after a run-time check.

#include "CWinnowFilter.h"

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

// The first `positions` bits of `~continuations`: the lead bytes the stage tests.
static inline uint64_t leads_of(uint64_t continuations, int positions) {
  return ~continuations & (positions < 64 ? (1ull << positions) - 1 : ~0ull);
}

// The low 64 bits of `key * multiplier` per lane, for keys of at most 32 bits: AVX2 multiplies
// only 32 by 32 bits, so the multiplier's two halves are multiplied apart.
__attribute__((target("avx2"))) static inline __m256i product(__m256i key, __m256i low, __m256i high) {
  return _mm256_add_epi64(_mm256_mul_epu32(key, low), _mm256_slli_epi64(_mm256_mul_epu32(key, high), 32));
}

__attribute__((target("avx2,bmi,bmi2"))) uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier) {
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
  const uint64_t leads = leads_of(continuations, positions);
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
  const uint64_t *singles, uint64_t multiplier) {
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
  const uint64_t leads = leads_of(
    _mm512_cmpeq_epi8_mask(
      _mm512_and_si512(_mm512_loadu_si512(block), _mm512_set1_epi8((char)0xC0)), _mm512_set1_epi8((char)0x80)),
    positions);
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

#else

int winnow_filter_vector_level(void) { return 0; }

uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier) {
  (void)block;
  (void)positions;
  (void)prefix;
  (void)prefix_shift;
  (void)gate;
  (void)singles;
  (void)multiplier;
  return 0;
}

uint64_t winnow_filter_prefix_pass_wide(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  const uint64_t *singles, uint64_t multiplier) {
  return winnow_filter_prefix_pass(block, positions, prefix, prefix_shift, gate, singles, multiplier);
}

#endif
