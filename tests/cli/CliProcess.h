#pragma once
// Runs the built pipescope-cli (PIPESCOPE_CLI) as a child process and collects its
// exit code, stdout and stderr, so the tests see exactly what a user sees.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

extern char** environ;

namespace pipescope::testing {

struct CliResult {
  int exitCode = -1;  ///< -1 when the process ended by a signal
  int signal = 0;     ///< the signal that ended it, if one did
  std::string out;
  std::string err;
};

class CliProcess {
 public:
  /// blockSigint: start the child with SIGINT blocked, so an interrupt sent before it
  /// reaches main() stays pending (as if it arrived at its first instruction).
  explicit CliProcess(const std::vector<std::string>& args, bool blockSigint = false)
      : CliProcess(args, blockSigint ? std::vector<int>{SIGINT} : std::vector<int>{}) {}
  /// Starts the child with `blockedSignals` blocked: one sent before it reaches main()
  /// stays pending until the program unblocks it.
  CliProcess(const std::vector<std::string>& args, const std::vector<int>& blockedSignals)
      : CliProcess(args, blockedSignals, false) {}
  /// Starts the child with `signals` blocked and already pending when its main() runs:
  /// a shell sends them to itself, then execs the program (a pending, blocked signal
  /// survives exec). Unlike a kill() after the start, this never races the program.
  static std::unique_ptr<CliProcess> withPendingSignals(const std::vector<std::string>& args,
                                                        const std::vector<int>& signals) {
    return std::unique_ptr<CliProcess>(new CliProcess(args, signals, true));
  }

 private:
  CliProcess(const std::vector<std::string>& args, const std::vector<int>& blockedSignals, bool pending) {
    int outPipe[2], errPipe[2];
    if (::pipe(outPipe) != 0 || ::pipe(errPipe) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    posix_spawn_file_actions_addclose(&actions, outPipe[0]);
    posix_spawn_file_actions_addclose(&actions, errPipe[0]);
    std::vector<std::string> argv{PIPESCOPE_CLI};
    if (pending) {
      std::string script;
      for (int sig : blockedSignals) script += "kill -" + std::to_string(sig) + " $$; ";
      argv = {"/bin/sh", "-c", script + "exec \"$0\" \"$@\"", PIPESCOPE_CLI};
    }
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (!blockedSignals.empty()) {
      sigset_t mask;
      sigemptyset(&mask);
      for (int blocked : blockedSignals) sigaddset(&mask, blocked);
      posix_spawnattr_setsigmask(&attr, &mask);
      posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    }
    if (posix_spawn(&pid_, argv.front().c_str(), &actions, &attr, cargv.data(), environ) != 0) pid_ = -1;
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    outFd_ = outPipe[0];
    errFd_ = errPipe[0];
  }

 public:
  ~CliProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (outFd_ >= 0) ::close(outFd_);
    if (errFd_ >= 0) ::close(errFd_);
  }
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  /// Reads output until stderr contains `text` or both pipes close; true if found.
  bool waitForStderr(const std::string& text) {
    while (result_.err.find(text) == std::string::npos)
      if (!pump()) return result_.err.find(text) != std::string::npos;
    return true;
  }

  /// Reads everything, waits for the exit and returns what the process did.
  CliResult finish() {
    while (pump()) {
    }
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
      reaped_ = true;
      result_.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      result_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    return result_;
  }

 private:
  // One poll round; false once both pipes are closed.
  bool pump() {
    pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};
    if (outFd_ < 0 && errFd_ < 0) return false;
    if (::poll(fds, 2, -1) < 0) return false;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? outFd_ : errFd_;
      if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result_.out : result_.err).append(buf, std::size_t(n));
      } else {
        ::close(fd);
        fd = -1;
      }
    }
    return outFd_ >= 0 || errFd_ >= 0;
  }

  pid_t pid_ = -1;
  int outFd_ = -1, errFd_ = -1;
  bool reaped_ = false;
  CliResult result_;
};

inline CliResult runCli(const std::vector<std::string>& args) {
  CliProcess p(args);
  return p.finish();
}

/// The real PyTorch profiler trace the CLI tests import (tests/fixtures).
inline std::string pytorchFixture() {
  return std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";
}

/// A path in the test temp folder, unique to this process: `prefix` names the test file.
inline std::string cliTempPath(const std::string& prefix, const std::string& name) {
  return ::testing::TempDir() + prefix + "-" + std::to_string(::getpid()) + "-" + name;
}

}  // namespace pipescope::testing
