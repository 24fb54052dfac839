// The raw start filter's first stage with AVX2 (see include/CWinnowFilter.h). Swift's SIMD
// types do not expose byte shuffles or gathers, and the intrinsics need the target feature on
// the function, which a Swift module can only get from an unsafe flag; hence this file, whose
// one vector function carries the attribute and is called only after a run-time check.

#include "CWinnowFilter.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int winnow_filter_vector_available(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  // OSXSAVE (27) and AVX (28): the system saves the vector registers it reports in XCR0.
  if ((ecx & (1u << 27)) == 0 || (ecx & (1u << 28)) == 0) return 0;
  unsigned int xcr0_low, xcr0_high;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  if ((xcr0_low & 6u) != 6u) return 0;  // SSE and AVX state
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  return (ebx & (1u << 5)) != 0;  // AVX2
}

// The low 64 bits of `key * multiplier` per lane, for keys of at most 32 bits: AVX2 multiplies
// only 32 by 32 bits, so the multiplier's two halves are multiplied apart.
__attribute__((target("avx2"))) static inline __m256i product(__m256i key, __m256i low, __m256i high) {
  return _mm256_add_epi64(_mm256_mul_epu32(key, low), _mm256_slli_epi64(_mm256_mul_epu32(key, high), 32));
}

__attribute__((target("avx2"))) uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  uint64_t multiplier) {
  const __m256i low = _mm256_set1_epi64x((long long)(multiplier & 0xFFFFFFFFu));
  const __m256i high = _mm256_set1_epi64x((long long)(multiplier >> 32));
  const __m128i shift = _mm_cvtsi64_si128((long long)prefix_shift);
  const __m256i mask32 = _mm256_set1_epi64x(0xFFFFFFFFll);
  const __m256i mask16 = _mm256_set1_epi64x(0xFFFFll);
  const __m256i mask6 = _mm256_set1_epi64x(63);
  // Positions 0 to 3 and 4 to 7 of sixteen bytes, each the eight bytes from there: a lane of
  // 128 bits holds two positions.
  const __m256i first = _mm256_setr_epi8(
    0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9, 3, 4, 5, 6, 7, 8, 9, 10);
  const __m256i second = _mm256_setr_epi8(
    4, 5, 6, 7, 8, 9, 10, 11, 5, 6, 7, 8, 9, 10, 11, 12, 6, 7, 8, 9, 10, 11, 12, 13, 7, 8, 9, 10, 11, 12, 13, 14);
  const long long *prefix_words = (const long long *)prefix;
  const long long *gate_words = (const long long *)gate;
  uint64_t passed = 0;
  for (int offset = 0; offset < positions; offset += 8) {
    const __m256i bytes = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)((const uint8_t *)block + offset)));
    for (int half = 0; half < 2; half++) {
      const __m256i value = _mm256_shuffle_epi8(bytes, half == 0 ? first : second);
      const __m256i index = _mm256_srl_epi64(product(_mm256_and_si256(value, mask32), low, high), shift);
      __m256i found = _mm256_srlv_epi64(
        _mm256_i64gather_epi64(prefix_words, index, 8), _mm256_and_si256(_mm256_srli_epi64(value, 32), mask6));
      if (gate_words != 0) {
        const __m256i gate_index = _mm256_srli_epi64(product(_mm256_and_si256(value, mask16), low, high), 54);
        found = _mm256_or_si256(
          found,
          _mm256_srlv_epi64(
            _mm256_i64gather_epi64(gate_words, gate_index, 8), _mm256_and_si256(_mm256_srli_epi64(value, 16), mask6)));
      }
      const int lanes = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_slli_epi64(found, 63)));
      passed |= (uint64_t)(unsigned)lanes << (offset + 4 * half);
    }
  }
  // Lead bytes: not 10xxxxxx.
  const __m256i top = _mm256_set1_epi8((char)0xC0);
  const __m256i continuation = _mm256_set1_epi8((char)0x80);
  const __m256i low_bytes = _mm256_loadu_si256((const __m256i *)block);
  const __m256i high_bytes = _mm256_loadu_si256((const __m256i *)((const uint8_t *)block + 32));
  const uint64_t continuations =
    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(low_bytes, top), continuation))
    | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(high_bytes, top), continuation))
        << 32;
  return passed & ~continuations;
}

#else

int winnow_filter_vector_available(void) { return 0; }

uint64_t winnow_filter_prefix_pass(
  const void *block, int positions, const uint64_t *prefix, uint64_t prefix_shift, const uint64_t *gate,
  uint64_t multiplier) {
  (void)block;
  (void)positions;
  (void)prefix;
  (void)prefix_shift;
  (void)gate;
  (void)multiplier;
  return 0;
}

#endif
