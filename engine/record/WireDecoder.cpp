#include "record/WireDecoder.h"

#include <cstring>

#include "trace/Lane.h"

namespace pipescope::wire {

namespace {

constexpr std::uint8_t kLastLaneKind = std::uint8_t(LaneKind::HostOther);

struct Damage {
  std::string what;
};

/// Bounds-checked little-endian reads over one message's payload.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : b_(bytes) {}
  std::size_t left() const { return b_.size() - pos_; }
  void need(std::size_t n, const char* what) const {
    if (left() < n)
      throw Damage{std::string(what) + " runs past the end of the message (" + std::to_string(n) + " bytes needed, " +
                   std::to_string(left()) + " left)"};
  }
  std::uint64_t uint(int bytes, const char* what) {
    need(std::size_t(bytes), what);
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(b_[pos_ + std::size_t(i)])) << (8 * i);
    pos_ += std::size_t(bytes);
    return v;
  }
  std::uint8_t u8(const char* what) { return std::uint8_t(uint(1, what)); }
  std::uint16_t u16(const char* what) { return std::uint16_t(uint(2, what)); }
  std::uint32_t u32(const char* what) { return std::uint32_t(uint(4, what)); }
  std::uint64_t u64(const char* what) { return uint(8, what); }
  std::int32_t i32(const char* what) { return std::int32_t(u32(what)); }
  std::int64_t i64(const char* what) { return std::int64_t(u64(what)); }
  std::string str(const char* what) {
    const std::uint32_t n = u32(what);
    if (n > kMaxStringBytes)
      throw Damage{std::string(what) + ": a string of " + std::to_string(n) + " bytes (at most " +
                   std::to_string(kMaxStringBytes) + ")"};
    need(n, what);
    std::string s(b_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::string_view raw(std::size_t n, const char* what) {
    need(n, what);
    std::string_view v = b_.substr(pos_, n);
    pos_ += n;
    return v;
  }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

std::uint32_t readSize(std::string_view b) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(b[std::size_t(i)])) << (8 * i);
  return v;
}

bool knownType(std::uint8_t t) { return t >= std::uint8_t(MessageType::Hello) && t <= std::uint8_t(MessageType::End); }

std::string version(std::uint16_t major, std::uint16_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace

std::string_view toString(MessageType t) {
  switch (t) {
    case MessageType::Hello: return "hello";
    case MessageType::Device: return "device";
    case MessageType::Lane: return "lane";
    case MessageType::Name: return "name";
    case MessageType::Ops: return "ops";
    case MessageType::Note: return "note";
    case MessageType::End: return "end";
  }
  return "unknown";
}

void Decoder::feed(std::string_view bytes) {
  if (failed()) return;
  // Drop what was read once it is most of the buffer: appends stay amortised O(1).
  if (pos_ > 0 && pos_ * 2 >= buffer_.size()) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  buffer_.append(bytes.data(), bytes.size());
}

Decoder::Status Decoder::fail(std::string what) {
  error_ = "byte " + std::to_string(consumed_) + ": message " + std::to_string(messages_ + 1) + ": " + what;
  buffer_.clear();
  pos_ = 0;
  return Status::Failed;
}

bool Decoder::checkStart(std::string_view pending) {
  if (hello_ || messages_ > 0) return true;
  // The first message must be a hello with the magic: said as soon as the bytes are in,
  // so that a stream of something else fails at once instead of waiting for a size.
  if (pending.size() >= 5 && static_cast<unsigned char>(pending[4]) != std::uint8_t(MessageType::Hello)) {
    fail("the stream does not start with a hello message: it is not a pipescope recording");
    return false;
  }
  const std::size_t have = std::min(pending.size() > 5 ? pending.size() - 5 : 0, kMagic.size());
  if (have > 0 && pending.substr(5, have) != kMagic.substr(0, have)) {
    fail("the hello message lacks the magic \"PSRECORD\": it is not a pipescope recording");
    return false;
  }
  return true;
}

Decoder::Status Decoder::next(Message& out) {
  while (true) {
    if (failed()) return Status::Failed;
    const std::string_view pending = std::string_view(buffer_).substr(pos_);
    if (!checkStart(pending)) return Status::Failed;
    if (pending.size() < 4) return Status::NeedMore;
    const std::uint32_t size = readSize(pending);
    if (size == 0) return fail("a message of 0 bytes (every message has at least its type)");
    if (size > kMaxMessageBytes)
      return fail("a message of " + std::to_string(size) + " bytes (at most " + std::to_string(kMaxMessageBytes) +
                  "): the stream is damaged");
    if (ended_) return fail("data after the end-of-stream message");
    if (pending.size() < 4 + std::size_t(size)) return Status::NeedMore;
    const auto typeByte = static_cast<std::uint8_t>(pending[4]);
    const std::string_view body = pending.substr(5, size - 1);
    if (!knownType(typeByte)) {
      // A newer minor version may add message types; a sender of this version or an
      // older one cannot: then it is damage.
      if (!hello_ || hello_->minor <= kMinor)
        return fail("unknown message type " + std::to_string(typeByte) + " in a version " +
                    version(hello_ ? hello_->major : kMajor, hello_ ? hello_->minor : 0) + " stream: the stream is damaged");
      ++skipped_;
      ++messages_;
      pos_ += 4 + std::size_t(size);
      consumed_ += 4 + std::uint64_t(size);
      continue;
    }
    const auto type = MessageType(typeByte);
    if (!hello_ && type != MessageType::Hello)
      return fail("the stream does not start with a hello message: it is not a pipescope recording");
    if (hello_ && type == MessageType::Hello) return fail("a second hello message");
    std::string damage = decodeBody(type, body, out);
    if (!damage.empty()) return fail(std::string(toString(type)) + ": " + damage);
    if (type == MessageType::Hello) hello_ = std::get<Hello>(out);
    if (type == MessageType::End) ended_ = true;
    ++messages_;
    pos_ += 4 + std::size_t(size);
    consumed_ += 4 + std::uint64_t(size);
    return Status::Message;
  }
}

std::string Decoder::decodeBody(MessageType type, std::string_view body, Message& out) {
  try {
    Reader r(body);
    switch (type) {
      case MessageType::Hello: {
        Hello h;
        if (r.raw(kMagic.size(), "the magic") != kMagic)
          return "lacks the magic \"PSRECORD\": it is not a pipescope recording";
        h.major = r.u16("the major version");
        h.minor = r.u16("the minor version");
        if (h.major > kMajor)
          return "recorded with wire format " + version(h.major, h.minor) + ", newer than the " + version(kMajor, kMinor) +
                 " this pipescope reads: record with the pipescope whose libpipescope-inject.so the program loaded "
                 "(or update this one)";
        if (h.major < 1) return "wire format " + version(h.major, h.minor) + " does not exist (the first is 1.0)";
        h.pid = r.i64("the process id");
        h.parentPid = r.i64("the parent process id");
        h.clockNs = r.i64("the clock");
        h.cuptiVersion = r.u32("the CUPTI version");
        h.processName = r.str("the process name");
        h.commandLine = r.str("the command line");
        h.timing = r.str("the timing description");
        out = std::move(h);
        break;
      }
      case MessageType::Device: {
        Device d;
        d.id = r.u32("the device id");
        d.name = r.str("the device name");
        d.computeMajor = r.i32("the compute capability");
        d.computeMinor = r.i32("the compute capability");
        d.memoryBytes = r.u64("the memory size");
        d.multiprocessors = r.i32("the multiprocessor count");
        d.copyEngines = r.i32("the copy engine count");
        out = std::move(d);
        break;
      }
      case MessageType::Lane: {
        Lane l;
        l.id = r.u32("the lane id");
        l.kind = r.u8("the lane kind");
        if (l.kind > kLastLaneKind)
          return "lane " + std::to_string(l.id) + ": unknown lane kind " + std::to_string(l.kind) + " (kinds are 0 to " +
                 std::to_string(kLastLaneKind) + ")";
        l.index = r.i32("the lane index");
        l.device = r.i32("the lane's device");
        l.name = r.str("the lane name");
        out = std::move(l);
        break;
      }
      case MessageType::Name: {
        Name n;
        n.id = r.u32("the name id");
        n.text = r.str("the name");
        out = std::move(n);
        break;
      }
      case MessageType::Ops: {
        const std::uint32_t count = r.u32("the op count");
        const std::uint16_t opBytes = r.u16("the op size");
        if (opBytes < kOpBytes)
          return "ops of " + std::to_string(opBytes) + " bytes (version " + version(kMajor, 0) + " ops have " +
                 std::to_string(kOpBytes) + ")";
        if (std::uint64_t(count) * opBytes > r.left())
          return std::to_string(count) + " ops of " + std::to_string(opBytes) + " bytes do not fit in the " +
                 std::to_string(r.left()) + " bytes of the message";
        Ops ops;
        ops.ops.resize(count);
        for (Op& o : ops.ops) {
          Reader one(r.raw(opBytes, "an op"));
          o.submit = one.i64("submit");
          o.ready = one.i64("ready");
          o.start = one.i64("start");
          o.end = one.i64("end");
          o.bytes = one.u64("bytes");
          o.batch = one.i32("batch");
          o.correlation = one.u32("correlation");
          o.lane = one.u32("lane");
          o.engineLane = one.u32("engine lane");
          o.name = one.u32("name");
          o.stream = one.i32("stream");
          o.kind = one.u8("kind");
          o.flags = one.u8("flags");
        }
        out = std::move(ops);
        break;
      }
      case MessageType::Note: {
        Note n;
        n.level = r.u8("the note level");
        if (n.level > Note::Error) return "unknown note level " + std::to_string(n.level) + " (0 to 2)";
        n.text = r.str("the note");
        out = std::move(n);
        break;
      }
      case MessageType::End: {
        End e;
        e.opsSent = r.u64("the op count");
        e.recordsDropped = r.u64("the dropped record count");
        e.reason = r.str("the reason");
        out = std::move(e);
        break;
      }
    }
  } catch (const Damage& d) {
    return d.what;
  }
  return {};
}

std::string Decoder::endOfStream() const {
  if (failed()) return error_;
  const std::size_t pending = buffer_.size() - pos_;
  if (pending > 0) {
    std::string what = "the stream ends inside a message (" + std::to_string(pending) + " bytes of it arrived";
    if (pending >= 4) what += ", of " + std::to_string(readSize(std::string_view(buffer_).substr(pos_)) + 4);
    return what + ", at byte " + std::to_string(consumed_) +
           "): the process was cut off; every message before it is kept";
  }
  if (messages_ == 0) return "the process connected but sent nothing";
  if (!ended_)
    return "the stream ended without its end-of-stream message: the process ended without flushing its records "
           "(it crashed, was killed, or left through _exit); every message before is kept";
  return {};
}

}  // namespace pipescope::wire
