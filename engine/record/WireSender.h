#pragma once
// The recorded process's end of the socket: connects to the recorder's UNIX socket
// and sends encoded messages. A recorder that stopped reading, closed the socket or
// died must never harm the program: sends use MSG_NOSIGNAL (no SIGPIPE), give up after
// a timeout instead of blocking the sender for good, and after the first failure the
// sender stays stopped and says why. Plain POSIX: used inside the injection library.
#include <chrono>
#include <string>
#include <string_view>

namespace pipescope::record {

class WireSender {
 public:
  WireSender() = default;
  ~WireSender();
  WireSender(const WireSender&) = delete;
  WireSender& operator=(const WireSender&) = delete;

  /// Connects to the socket at `path`; false with stopReason() set when it cannot.
  bool connect(const std::string& path, std::chrono::milliseconds sendTimeout = std::chrono::seconds(5));
  /// Uses an already connected socket (tests: one end of a socketpair). Takes ownership.
  void adopt(int fd, std::chrono::milliseconds sendTimeout = std::chrono::seconds(5));
  /// Sends everything or stops: false once the recorder is gone (stopReason() says why).
  bool send(std::string_view bytes);
  /// Closes the socket (the recorder sees the end of the stream).
  void close();
  /// After fork(): the child must not write into its parent's stream. Closes the
  /// descriptor without anything else (async-signal-safe).
  void abandonAfterFork();

  bool active() const { return fd_ >= 0 && stopReason_.empty(); }
  const std::string& stopReason() const { return stopReason_; }

 private:
  int fd_ = -1;
  std::string stopReason_;
};

}  // namespace pipescope::record
