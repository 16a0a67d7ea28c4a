#include "backend/HostCache.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace pipescope {

std::uint64_t parseCacheSize(const std::string& text) {
  std::size_t i = 0;
  std::uint64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (value > (std::uint64_t(1) << 50)) return 0;
    value = value * 10 + std::uint64_t(text[i++] - '0');
  }
  if (i == 0) return 0;
  std::uint64_t scale = 1;
  if (i < text.size()) {
    switch (text[i]) {
      case 'K': scale = 1024; ++i; break;
      case 'M': scale = 1024 * 1024; ++i; break;
      case 'G': scale = 1024ull * 1024 * 1024; ++i; break;
      default: break;
    }
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i == text.size() ? value * scale : 0;
}

std::uint64_t hostLastLevelCacheBytes() {
  std::uint64_t best = 0;
  // index0..indexN: L1d, L1i, L2, L3 on x86; the largest is the last level.
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    if (!in) continue;
    std::string text;
    std::getline(in, text);
    best = std::max(best, parseCacheSize(text));
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = std::uint64_t(l3);
  }
#endif
  return best;
}

}  // namespace pipescope
