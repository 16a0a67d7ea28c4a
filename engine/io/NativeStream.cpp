#include "io/NativeStream.h"

#include "io/NativeCodec.h"
#include "io/NativeFormat.h"

namespace pipescope::native {

std::string fileHead() {
  std::string s(kNativeMagic);
  put<std::uint32_t>(s, kNativeVersion);
  put<std::uint32_t>(s, 0);  // flags, reserved
  return s;
}

std::string chunk(const Trace& trace, const TraceView& ops, std::uint64_t from, std::uint64_t to,
                  std::uint64_t opsBefore) {
  const std::string raw = metadataJson(trace).dump();
  const std::string packed = compress(raw);
  const std::uint64_t n = to - from;
  std::string s(kChunkTag);
  put<std::uint64_t>(s, opsBefore);
  put<std::uint32_t>(s, std::uint32_t(n));
  put<std::uint32_t>(s, std::uint32_t((n + 65535) / 65536));
  put<std::uint64_t>(s, packed.size());
  put<std::uint64_t>(s, raw.size());
  s += packed;
  appendBlocks(s, ops, from, to);
  s += kChunkEndTag;
  return s;
}

}  // namespace pipescope::native
