#include "cuda/CpuWork.h"

#include <cmath>

namespace pipescope::cuda {

namespace {
// Operations per float element, four independent chains (4 bytes per element).
std::uint32_t roundsFor(double opsPerByte) { return std::uint32_t(std::llround(opsPerByte * 4.0 / 4.0)); }

inline float sampleValue(std::uint64_t x) {
  // splitmix64: cheap, deterministic "image" data.
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return float(x >> 40) * (1.0f / 16777216.0f);
}
}  // namespace

void preprocessShare(float* dst, std::size_t n, std::int64_t batch, double opsPerByte, int worker, int workers) {
  std::size_t begin = 0, end = 0;
  shareOf(n, worker, workers, begin, end);
  const std::uint32_t rounds = roundsFor(opsPerByte);
  const std::uint64_t base = std::uint64_t(batch) * 0x100000001B3ull;
  for (std::size_t i = begin; i < end; ++i) {
    float v = sampleValue(base + i);
    float c0 = v, c1 = v, c2 = v, c3 = v;
    for (std::uint32_t r = 0; r < rounds; ++r) {
      c0 = c0 * 0.999f + 0.0005f;
      c1 = c1 * 0.998f + 0.0010f;
      c2 = c2 * 0.997f + 0.0015f;
      c3 = c3 * 0.996f + 0.0020f;
    }
    dst[i] = (c0 + c1 + c2 + c3) * 0.25f;
  }
}

double postprocessShare(const float* src, std::size_t n, double opsPerByte, int worker, int workers) {
  std::size_t begin = 0, end = 0;
  shareOf(n, worker, workers, begin, end);
  const std::uint32_t rounds = roundsFor(opsPerByte);
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const float v = src[i];
    float c0 = v, c1 = v, c2 = v, c3 = v;
    for (std::uint32_t r = 0; r < rounds; ++r) {
      c0 = c0 * 0.999f + v;
      c1 = c1 * 0.998f + v;
      c2 = c2 * 0.997f + v;
      c3 = c3 * 0.996f + v;
    }
    s0 += c0;
    s1 += c1;
    s2 += c2;
    s3 += c3;
  }
  return double(s0) + double(s1) + double(s2) + double(s3);
}

}  // namespace pipescope::cuda
