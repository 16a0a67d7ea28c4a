#include "io/OutputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <streambuf>
#include <vector>

#include "io/TraceFileError.h"

namespace pipescope {

namespace {

namespace fs = std::filesystem;

std::mutex& hookMutex() {
  static std::mutex m;
  return m;
}
std::function<void(const std::string&)>& hook() {
  static std::function<void(const std::string&)> h;
  return h;
}

/// "/dev/fd/N", "/proc/self/fd/N", "/dev/stdout", "-": an open descriptor of this
/// process, or -1. Opening such a name would follow it to whatever the shell
/// redirected it to, and replacing that file would pull it from under the shell.
int descriptorOf(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p(prefix);
    if (path.size() > p.size() && path.compare(0, p.size(), p) == 0) {
      const std::string n = path.substr(p.size());
      if (n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6) return -1;
      return std::stoi(n);
    }
  }
  return -1;
}

/// Follows a chain of symbolic links to the path that is finally written.
std::string followLinks(const std::string& path) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
    std::vector<char> buf(PATH_MAX + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) return p.string();
    const fs::path target(std::string(buf.data(), std::size_t(n)));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw TraceFileError("cannot write '" + path + "': too many levels of symbolic links (a link loop?)");
}

}  // namespace

/// A streambuf onto a file descriptor that remembers the first write error.
class OutputFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(1 << 16) { setp(data_.data(), data_.data() + data_.size()); }
  int error() const { return error_; }
  bool drain() {
    const char* p = pbase();
    std::size_t left = std::size_t(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        break;
      }
      p += n;
      left -= std::size_t(n);
    }
    setp(data_.data(), data_.data() + data_.size());
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  int error_ = 0;
  std::vector<char> data_;
};

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) throw TraceFileError("cannot write '': no file name given");
  if (const int fd = descriptorOf(path); fd >= 0) {
    kind_ = OutputKind::Stream;
    resolved_ = path;
    fd_ = fd;
    ownsFd_ = false;
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail("that descriptor is not open", errno);
  } else {
    resolved_ = followLinks(path);
    struct stat st {};
    const bool exists = ::stat(resolved_.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
      throw TraceFileError("cannot write '" + path + "': it is a folder; give a file name inside it");
    if (exists && S_ISBLK(st.st_mode))
      throw TraceFileError("cannot write '" + path +
                           "': it is a block device (a disk or partition); pipescope writes only files, FIFOs and "
                           "character devices. Give a file name instead.");
    if (exists && S_ISSOCK(st.st_mode))
      throw TraceFileError("cannot write '" + path + "': it is a socket; give a file name or a FIFO instead");
    if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
      kind_ = OutputKind::Stream;
      fd_ = ::open(resolved_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) fail("cannot open it for writing", errno);
    } else {
      kind_ = OutputKind::File;
      static std::atomic<unsigned> counter{0};
      const fs::path target(resolved_);
      if (target.filename().empty()) throw TraceFileError("cannot write '" + path + "': not a file name");
      temp_ = (target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" +
                                       std::to_string(counter++)))
                  .string();
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0) {
        const int err = errno;
        temp_.clear();
        fail("cannot create a file in its folder (check that the folder exists and is writable)", err);
      }
      if (exists) {
        // The replacement takes the old file's place: keep its permissions and, where
        // this process may (root, or the same owner), its owner and group.
        (void)::fchmod(fd_, st.st_mode & 07777);
        if (st.st_uid != ::geteuid() || st.st_gid != ::getegid()) {
          if (::fchown(fd_, st.st_uid, st.st_gid) != 0) (void)::fchown(fd_, ::geteuid(), st.st_gid);
          (void)::fchmod(fd_, st.st_mode & 07777);  // chown clears set-id bits
        }
      }
    }
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

OutputFile::~OutputFile() {
  if (!published_) discard();
  if (fd_ >= 0 && ownsFd_) ::close(fd_);
}

std::ostream& OutputFile::stream() { return *stream_; }

void OutputFile::fail(const std::string& why, int err) const {
  std::string hint;
  if (err == ENOSPC) hint = " (the disk is full)";
  else if (err == EPIPE) hint = " (the reading end was closed)";
  throw TraceFileError("cannot write '" + path_ + "': " + why + (err ? std::string(": ") + std::strerror(err) : "") +
                       hint);
}

void OutputFile::discard() noexcept {
  if (temp_.empty()) return;
  ::unlink(temp_.c_str());
  temp_.clear();
}

void OutputFile::flush(bool durable) {
  stream_->flush();
  if (buffer_->error() != 0 || !*stream_) {
    const int err = buffer_->error();
    discard();
    fail("writing failed", err);
  }
  if (durable && kind_ == OutputKind::File && ::fdatasync(fd_) != 0) {
    const int err = errno;
    discard();
    fail("syncing to the disk failed", err);
  }
}

void OutputFile::publish() {
  if (published_) return;
  flush(true);
  if (kind_ == OutputKind::File) {
    std::function<void(const std::string&)> h;
    {
      std::lock_guard lock(hookMutex());
      h = hook();
    }
    try {
      if (h) h(temp_);
    } catch (const std::exception& e) {
      discard();
      throw TraceFileError("cannot write '" + path_ + "': " + e.what());
    }
    if (::fsync(fd_) != 0) {
      const int err = errno;
      discard();
      fail("syncing to the disk failed", err);
    }
    if (::rename(temp_.c_str(), resolved_.c_str()) != 0) {
      const int err = errno;
      discard();
      fail("cannot replace it", err);
    }
    temp_.clear();
    // The rename itself is durable only once the folder is synced.
    const std::string folder = fs::path(resolved_).parent_path().string();
    const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      (void)::fsync(dir);
      ::close(dir);
    }
  }
  published_ = true;
}

void OutputFile::commit() {
  publish();
  flush(true);
  if (kind_ == OutputKind::File && ::fsync(fd_) != 0) fail("syncing to the disk failed", errno);
  if (ownsFd_ && fd_ >= 0) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && errno != EINTR) fail("closing failed", errno);
  }
}

void writeOutputFile(const std::string& path, const std::function<void(std::ostream&)>& write) {
  OutputFile out(path);
  try {
    write(out.stream());
  } catch (const TraceFileError&) {
    throw;
  } catch (const TraceLoadCancelled&) {
    throw;
  } catch (const std::exception& e) {
    throw TraceFileError("cannot write '" + path + "': " + e.what());
  }
  out.commit();
}

bool isStandardOutputPath(const std::string& path) { return path == "-" || path == "/dev/stdout"; }

void setAtomicWriteFaultHook(std::function<void(const std::string& tempPath)> h) {
  std::lock_guard lock(hookMutex());
  hook() = std::move(h);
}

}  // namespace pipescope
