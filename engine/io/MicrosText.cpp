#include "io/MicrosText.h"

namespace pipescope {

std::optional<std::int64_t> microsTextToNs(std::string_view t) {
  std::size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
  std::uint64_t mantissa = 0;
  int exp10 = 3;  // µs -> ns
  int significant = 0;
  bool anyDigit = false;
  bool dropped = false;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    anyDigit = true;
    if (significant < 18) {
      mantissa = mantissa * 10 + (t[i] - '0');
      if (mantissa != 0) ++significant;
    } else {
      ++exp10;
      dropped = dropped || t[i] != '0';
    }
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      anyDigit = true;
      if (significant < 18) {
        mantissa = mantissa * 10 + (t[i] - '0');
        if (mantissa != 0) ++significant;
        --exp10;
      }
    }
  }
  if (!anyDigit) return std::nullopt;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool expNeg = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) expNeg = t[i++] == '-';
    int e = 0;
    bool expDigit = false;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      expDigit = true;
      if (e < 10000) e = e * 10 + (t[i] - '0');
    }
    if (!expDigit) return std::nullopt;
    exp10 += expNeg ? -e : e;
  }
  if (i != t.size()) return std::nullopt;
  (void)dropped;
  const auto limit = std::uint64_t(kMaxAbsTimeNs);
  if (mantissa == 0) return 0;
  if (exp10 >= 0) {
    for (int k = 0; k < exp10; ++k) {
      if (__builtin_mul_overflow(mantissa, std::uint64_t(10), &mantissa) || mantissa > limit) return std::nullopt;
    }
  } else {
    if (exp10 < -18) return 0;  // the mantissa is below 10^18
    std::uint64_t div = 1;
    for (int k = 0; k < -exp10; ++k) div *= 10;
    mantissa = mantissa / div + (mantissa % div >= div - div / 2 ? 1 : 0);
  }
  if (mantissa > limit) return std::nullopt;
  const auto v = std::int64_t(mantissa);
  return negative ? -v : v;
}

}  // namespace pipescope
