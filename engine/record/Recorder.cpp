#include "record/Recorder.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "record/InjectionLibrary.h"

namespace pipescope::record {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t monotonicNowNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\"'\\$`") == std::string::npos) return arg;
  std::string s = "'";
  for (char c : arg) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return s + "'";
}

/// A private folder for the socket: only this user can connect to it.
std::string makeSocketDir() {
  std::string base = "/tmp";
  if (const char* t = std::getenv("TMPDIR"); t && *t && std::strlen(t) < 60) base = t;
  std::string pattern = base + "/pipescope-rec-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    pattern = "/tmp/pipescope-rec-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw RecordStartError(std::string("cannot make a folder for the recording's socket in /tmp: ") +
                                 std::strerror(errno),
                             1);
  }
  return pattern;
}

}  // namespace

Recorder::Recorder(RecordRequest request) : request_(std::move(request)) {}

Recorder::~Recorder() {
  stopRecording();
  if (reader_.joinable()) reader_.join();
  std::lock_guard lock(mutex_);
  if (child_.running()) child_.detach();
  if (wakeFd_[0] >= 0) ::close(wakeFd_[0]);
  if (wakeFd_[1] >= 0) ::close(wakeFd_[1]);
}

std::string Recorder::commandText() const {
  std::string s;
  for (const auto& a : request_.command) s += (s.empty() ? "" : " ") + quoted(a);
  return s;
}

std::shared_ptr<Trace> Recorder::start() {
  if (trace_) throw std::logic_error("Recorder::start called twice");
  if (request_.command.empty() || request_.command[0].empty()) throw RecordStartError("no command to record", 2);
  if (request_.injectLibrary.empty()) throw RecordStartError("no injection library to record with", 1);

  socketDir_ = makeSocketDir();
  socketPath_ = socketDir_ + "/socket";
  auto cleanup = [this] {
    if (listenFd_ >= 0) ::close(listenFd_);
    listenFd_ = -1;
    ::unlink(socketPath_.c_str());
    ::rmdir(socketDir_.c_str());
  };
  sockaddr_un addr{};
  listenFd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listenFd_ < 0 || socketPath_.size() >= sizeof addr.sun_path) {
    cleanup();
    throw RecordStartError("cannot make the recording's socket: " + std::string(std::strerror(errno)), 1);
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socketPath_.data(), socketPath_.size());
  if (::bind(listenFd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listenFd_, 64) != 0) {
    const std::string why = std::strerror(errno);
    cleanup();
    throw RecordStartError("cannot listen on " + socketPath_ + ": " + why, 1);
  }
  if (::pipe2(wakeFd_, O_CLOEXEC | O_NONBLOCK) != 0) {
    cleanup();
    throw RecordStartError(std::string("pipe2(): ") + std::strerror(errno), 1);
  }

  auto trace = std::make_shared<Trace>(request_.maxOps);
  if (request_.keepUntilStreamed) trace->ops().retainFrom(0);
  DeviceInfo device;
  device.backend = "record";
  device.name = "";
  device.timingSource = "CUPTI (recorded from the program)";
  device.note = "recorded: " + commandText() + "; time 0 is when the recording began";
  trace->setDevice(device);
  trace->setOutcome({RunState::Running, "recording " + commandText()});
  origin_ = monotonicNowNs();
  assembler_ = std::make_unique<RecordAssembler>(trace, origin_);

  SpawnRequest spawn;
  spawn.argv = request_.command;
  spawn.workingDirectory = request_.workingDirectory;
  spawn.environment = request_.environment;
  for (const auto& [k, v] : injectionEnvironment(request_.injectLibrary, socketPath_, request_.device))
    spawn.environment[k] = v;
  spawn.ownProcessGroup = request_.ownProcessGroup;
  spawn.noInput = request_.ownProcessGroup;
  if (auto error = child_.start(spawn)) {
    cleanup();
    throw RecordStartError(error->message, error->exitCode);
  }
  trace_ = trace;
  recording_.store(true, std::memory_order_release);
  reader_ = std::jthread([this](std::stop_token stop) { readLoop(stop); });
  return trace;
}

void Recorder::stopRecording() {
  stopRequested_.store(true, std::memory_order_release);
  if (wakeFd_[1] >= 0) {
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(wakeFd_[1], &c, 1);
  }
}

void Recorder::endProgram() {
  std::lock_guard lock(mutex_);
  child_.signal(SIGTERM);
}

void Recorder::forwardSignal(int signal) {
  std::lock_guard lock(mutex_);
  child_.signal(signal);
}

void Recorder::detachProgram() {
  std::lock_guard lock(mutex_);
  if (!status_) status_ = child_.poll();
  if (child_.running()) child_.detach();
}

void Recorder::waitForRecording() {
  if (reader_.joinable()) reader_.join();
}

ExitStatus Recorder::waitForProgram() {
  waitForRecording();
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (!status_) status_ = child_.poll();
      if (status_ || !child_.running()) return status_.value_or(ExitStatus{});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::optional<ExitStatus> Recorder::programStatus() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::vector<RecordedProcess> Recorder::processes() const {
  std::lock_guard lock(mutex_);
  return processes_;
}

void Recorder::readLoop(std::stop_token stop) {
  struct Connection {
    int fd;
    std::size_t process;
  };
  std::vector<Connection> connections;
  std::vector<char> buffer(1 << 18);
  std::optional<Clock::time_point> exitedAt;
  bool userStop = false;
  auto closeConnection = [&](std::size_t i, const std::string& cutBecause = {}) {
    ::close(connections[i].fd);
    assembler_->close(connections[i].process, cutBecause);
    connections.erase(connections.begin() + std::ptrdiff_t(i));
  };
  while (true) {
    if (stop.stop_requested() || stopRequested_.load(std::memory_order_acquire)) {
      userStop = true;
      break;
    }
    std::vector<pollfd> fds{{wakeFd_[0], POLLIN, 0}, {listenFd_, POLLIN, 0}};
    for (const auto& c : connections) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), nfds_t(fds.size()), 50) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      char drain[64];
      while (::read(wakeFd_[0], drain, sizeof drain) > 0) {
      }
    }
    bool changed = false;
    if (fds[1].revents & POLLIN) {
      while (true) {
        const int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) break;
        connections.push_back({fd, assembler_->addProcess()});
        changed = true;
      }
    }
    bool data = false;
    for (std::size_t i = connections.size(); i-- > 0;) {
      // Indices of fds: the two fixed entries, then the connections that were polled.
      if (i + 2 >= fds.size() || fds[i + 2].fd != connections[i].fd || fds[i + 2].revents == 0) continue;
      std::size_t budget = 4u << 20;  // fairness between processes
      while (budget > 0) {
        const ssize_t n = ::read(connections[i].fd, buffer.data(), buffer.size());
        if (n > 0) {
          data = true;
          budget -= std::min(budget, std::size_t(n));
          if (!assembler_->feed(connections[i].process, std::string_view(buffer.data(), std::size_t(n)),
                                monotonicNowNs())) {
            // A damaged stream: stop reading it (its sender then stops too).
            closeConnection(i);
            changed = true;
            break;
          }
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        closeConnection(i);  // the end of the stream (or an error on it)
        changed = true;
        break;
      }
    }
    if (data) assembler_->publish();
    {
      std::lock_guard lock(mutex_);
      if (data || changed) processes_ = assembler_->processes();
      if (!status_) status_ = child_.poll();
      if (status_ && !exitedAt) exitedAt = Clock::now();
    }
    if (exitedAt && (connections.empty() || Clock::now() - *exitedAt > request_.drainAfterExit)) break;
  }
  // From here on no process can connect, and the ones still sending see their
  // stream closed: they stop sending and run on.
  const std::string cut = userStop ? "the recording was stopped while it ran; what it sent until then is kept"
                                   : "it was still running when the recording ended, after the program exited; what it "
                                     "sent until then is kept";
  for (std::size_t i = connections.size(); i-- > 0;) closeConnection(i, cut);
  ::close(listenFd_);
  listenFd_ = -1;
  ::unlink(socketPath_.c_str());
  ::rmdir(socketDir_.c_str());
  finishRecording(userStop);
}

void Recorder::finishRecording(bool stoppedByUser) {
  assembler_->publish();
  std::optional<ExitStatus> status;
  {
    std::lock_guard lock(mutex_);
    processes_ = assembler_->processes();
    arrival_ = assembler_->arrivalLatency();
    stoppedByUser_ = stoppedByUser;
    status = status_;
  }
  RunOutcome outcome;
  if (status && status->signalled) {
    outcome = {RunState::Failed, "the program " + status->describe() + "; the recording keeps what its processes sent"};
  } else if (status && !stoppedByUser) {
    outcome = {RunState::Finished, "the program " + status->describe()};
  } else {
    outcome = {RunState::Stopped, status ? "recording stopped; the program " + status->describe()
                                         : "recording stopped; the program (pid " + std::to_string(child_.pid()) +
                                               ") runs on"};
  }
  if (assembler_->processes().empty())
    outcome.message += "; no process of it used CUDA, so nothing ran on a GPU to record";
  trace_->setOutcome(outcome);
  recording_.store(false, std::memory_order_release);
}

ArrivalLatency Recorder::arrivalLatency() const {
  std::lock_guard lock(mutex_);
  return arrival_;
}

std::vector<std::string> Recorder::findings() const {
  std::vector<std::string> out;
  std::lock_guard lock(mutex_);
  if (processes_.empty()) {
    out.push_back(status_ ? "the program " + status_->describe() +
                                " without using CUDA: nothing ran on a GPU, so the recording is empty. (A program "
                                "run under another CUDA tool, such as nsys or compute-sanitizer, is that tool's to "
                                "record.)"
                          : "no process of the program has used CUDA so far: nothing ran on a GPU to record");
    return out;
  }
  for (const RecordedProcess& p : processes_) {
    const std::string who = p.label();
    for (const auto& n : p.notes)
      out.push_back(who + ": " + (n.level == wire::Note::Error ? "error: " : n.level == wire::Note::Warning ? "warning: " : "") +
                    n.text);
    if (!p.problem.empty()) out.push_back(who + ": " + p.problem);
    if (p.recordsDropped > 0)
      out.push_back(who + ": CUPTI dropped " + std::to_string(p.recordsDropped) +
                    " records (its buffers were full): the recording misses them");
  }
  return out;
}

}  // namespace pipescope::record
