#pragma once
// Appends wire messages (WireFormat.h) to a byte buffer. Used by the injection
// library, so it depends on nothing else of the engine.
#include <string>

#include "record/WireFormat.h"

namespace pipescope::wire {

class Encoder {
 public:
  void add(const Hello& m);
  void add(const Device& m);
  void add(const Lane& m);
  void add(const Name& m);
  /// Splits batches that would exceed kMaxMessageBytes into several messages.
  void add(const Ops& m);
  void add(const Note& m);
  void add(const End& m);
  void add(const Message& m);
  /// Messages another encoder made (Encoder::take()).
  void append(const std::string& encoded) { out_ += encoded; }

  const std::string& bytes() const { return out_; }
  std::string take() {
    std::string s;
    s.swap(out_);
    return s;
  }
  bool empty() const { return out_.empty(); }
  std::size_t size() const { return out_.size(); }

 private:
  std::size_t begin(MessageType type);  // returns where the size field is
  void end(std::size_t at);
  void u8(std::uint8_t v) { out_.push_back(char(v)); }
  void u16(std::uint16_t v);
  void u32(std::uint32_t v);
  void u64(std::uint64_t v);
  void i32(std::int32_t v) { u32(std::uint32_t(v)); }
  void i64(std::int64_t v) { u64(std::uint64_t(v)); }
  void str(const std::string& s);
  void op(const Op& o);

  std::string out_;
};

}  // namespace pipescope::wire
