#include "record/WireEncoder.h"

#include <algorithm>

namespace pipescope::wire {

void Encoder::u16(std::uint16_t v) {
  for (int i = 0; i < 2; ++i) out_.push_back(char((v >> (8 * i)) & 0xFF));
}
void Encoder::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(char((v >> (8 * i)) & 0xFF));
}
void Encoder::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(char((v >> (8 * i)) & 0xFF));
}

void Encoder::str(const std::string& s) {
  // Cut at the limit, and back to a UTF-8 character boundary so the text stays valid.
  std::size_t n = std::min<std::size_t>(s.size(), kMaxStringBytes);
  if (n < s.size())
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  u32(std::uint32_t(n));
  out_.append(s.data(), n);
}

std::size_t Encoder::begin(MessageType type) {
  const std::size_t at = out_.size();
  u32(0);  // patched by end()
  u8(std::uint8_t(type));
  return at;
}

void Encoder::end(std::size_t at) {
  const auto size = std::uint32_t(out_.size() - at - 4);
  for (int i = 0; i < 4; ++i) out_[at + std::size_t(i)] = char((size >> (8 * i)) & 0xFF);
}

void Encoder::add(const Hello& m) {
  const std::size_t at = begin(MessageType::Hello);
  out_.append(kMagic.data(), kMagic.size());
  u16(m.major);
  u16(m.minor);
  i64(m.pid);
  i64(m.parentPid);
  i64(m.clockNs);
  u32(m.cuptiVersion);
  str(m.processName);
  str(m.commandLine);
  str(m.timing);
  end(at);
}

void Encoder::add(const Device& m) {
  const std::size_t at = begin(MessageType::Device);
  u32(m.id);
  str(m.name);
  i32(m.computeMajor);
  i32(m.computeMinor);
  u64(m.memoryBytes);
  i32(m.multiprocessors);
  i32(m.copyEngines);
  end(at);
}

void Encoder::add(const Lane& m) {
  const std::size_t at = begin(MessageType::Lane);
  u32(m.id);
  u8(m.kind);
  i32(m.index);
  i32(m.device);
  str(m.name);
  end(at);
}

void Encoder::add(const Name& m) {
  const std::size_t at = begin(MessageType::Name);
  u32(m.id);
  str(m.text);
  end(at);
}

void Encoder::op(const Op& o) {
  i64(o.submit);
  i64(o.ready);
  i64(o.start);
  i64(o.end);
  u64(o.bytes);
  i32(o.batch);
  u32(o.correlation);
  u32(o.lane);
  u32(o.engineLane);
  u32(o.name);
  i32(o.stream);
  u8(o.kind);
  u8(o.flags);
  u16(0);
}

void Encoder::add(const Ops& m) {
  constexpr std::size_t kPerMessage = (kMaxMessageBytes - 16) / kOpBytes;
  for (std::size_t first = 0; first < m.ops.size(); first += kPerMessage) {
    const std::size_t n = std::min(kPerMessage, m.ops.size() - first);
    const std::size_t at = begin(MessageType::Ops);
    u32(std::uint32_t(n));
    u16(kOpBytes);
    out_.reserve(out_.size() + n * kOpBytes);
    for (std::size_t i = 0; i < n; ++i) op(m.ops[first + i]);
    end(at);
  }
}

void Encoder::add(const Note& m) {
  const std::size_t at = begin(MessageType::Note);
  u8(m.level);
  str(m.text);
  end(at);
}

void Encoder::add(const End& m) {
  const std::size_t at = begin(MessageType::End);
  u64(m.opsSent);
  u64(m.recordsDropped);
  str(m.reason);
  end(at);
}

void Encoder::add(const Message& m) {
  std::visit([this](const auto& v) { add(v); }, m);
}

}  // namespace pipescope::wire
