#pragma once
// Reads a wire stream (WireFormat.h) as its bytes arrive, in pieces of any size. Every
// complete message before a cut or a damaged byte is delivered; at the first damage
// the decoder stops and says what is wrong and where ("byte 1234: message 17 (ops):
// ..."). It never reads past a message's declared size, and a size beyond
// kMaxMessageBytes is refused as soon as its four bytes are in, so garbage cannot
// make it wait for, or allocate, gigabytes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "record/WireFormat.h"

namespace pipescope::wire {

class Decoder {
 public:
  enum class Status : std::uint8_t { Message, NeedMore, Failed };

  /// Appends bytes that arrived.
  void feed(std::string_view bytes);
  /// The next complete message into `out`; NeedMore until more bytes are fed; Failed
  /// (for good) once the stream is damaged: error() says how.
  Status next(Message& out);

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  /// What is wrong with a stream that ended here: empty when it ended right after its
  /// End message, else why the end is early (a cut inside a message, no End message)
  /// or the error that stopped it.
  std::string endOfStream() const;

  /// The hello message, once read.
  const std::optional<Hello>& hello() const { return hello_; }
  bool ended() const { return ended_; }
  std::uint64_t bytesRead() const { return consumed_; }
  std::uint64_t messagesRead() const { return messages_; }
  /// Messages of types this build does not know, from a newer minor version (skipped).
  std::uint64_t skippedMessages() const { return skipped_; }

 private:
  Status fail(std::string what);
  /// Checks the head of the first message as soon as its bytes are in.
  bool checkStart(std::string_view pending);
  std::string decodeBody(MessageType type, std::string_view body, Message& out);

  std::string buffer_;
  std::size_t pos_ = 0;          // first unread byte of buffer_
  std::uint64_t consumed_ = 0;   // bytes of whole messages read
  std::uint64_t messages_ = 0;
  std::uint64_t skipped_ = 0;
  std::optional<Hello> hello_;
  bool ended_ = false;
  std::string error_;
};

std::string_view toString(MessageType t);

}  // namespace pipescope::wire
