#include "record/WireSender.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace pipescope::record {

namespace {
void setSendTimeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = time_t(timeout.count() / 1000);
  tv.tv_usec = suseconds_t((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}
}  // namespace

WireSender::~WireSender() { close(); }

bool WireSender::connect(const std::string& path, std::chrono::milliseconds sendTimeout) {
  close();
  stopReason_.clear();
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    stopReason_ = "the recorder's socket path is empty or too long: '" + path + "'";
    return false;
  }
  // CLOEXEC: a program this process starts connects on its own, never through ours.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    stopReason_ = std::string("socket(): ") + std::strerror(errno);
    return false;
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    stopReason_ = "cannot reach the recorder at " + path + ": " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  adopt(fd, sendTimeout);
  return true;
}

void WireSender::adopt(int fd, std::chrono::milliseconds sendTimeout) {
  close();
  stopReason_.clear();
  fd_ = fd;
  setSendTimeout(fd_, sendTimeout);
}

bool WireSender::send(std::string_view bytes) {
  if (!active()) return false;
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(std::size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      stopReason_ = "the recorder stopped reading (a send waited longer than its timeout)";
    else if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
      stopReason_ = "the recorder closed the connection (recording stopped)";
    else
      stopReason_ = std::string("send(): ") + (n < 0 ? std::strerror(errno) : "nothing sent");
    return false;
  }
  return true;
}

void WireSender::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void WireSender::abandonAfterFork() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace pipescope::record
