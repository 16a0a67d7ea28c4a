#include "record/ChildProcess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace pipescope::record {

std::string ExitStatus::describe() const {
  if (!signalled) return "exited with status " + std::to_string(code);
  const char* name = ::strsignal(code);
  return "was killed by signal " + std::to_string(code) + (name ? std::string(" (") + name + ")" : std::string()) +
         (coreDumped ? ", core dumped" : "");
}

ExitStatus ExitStatus::fromWaitStatus(int status) {
  ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signalled = true;
    s.code = WTERMSIG(status);
    s.coreDumped = WCOREDUMP(status);
  } else {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

ChildProcess::~ChildProcess() {
  if (running()) detach();
}

std::optional<SpawnError> ChildProcess::start(const SpawnRequest& request) {
  if (request.argv.empty() || request.argv[0].empty()) return SpawnError{127, "no command to run"};
  if (!request.workingDirectory.empty()) {
    struct stat st {};
    if (::stat(request.workingDirectory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return SpawnError{1, "the working folder '" + request.workingDirectory + "' does not exist or is not a folder"};
  }
  // The environment: ours, with the request's variables set on top.
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    if (!request.environment.count(key)) env.push_back(entry);
  }
  for (const auto& [k, v] : request.environment) env.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = request.argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!request.workingDirectory.empty())
    posix_spawn_file_actions_addchdir_np(&actions, request.workingDirectory.c_str());
  if (request.noInput) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = 0;
  // Signals this process handles go back to their defaults in the program (exec does
  // that for handlers; SIGPIPE is named in case a library here ignores it).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  flags |= POSIX_SPAWN_SETSIGDEF;
  sigset_t mask;
  sigemptyset(&mask);
  posix_spawnattr_setsigmask(&attr, &mask);
  flags |= POSIX_SPAWN_SETSIGMASK;
  if (request.ownProcessGroup) {
    posix_spawnattr_setpgroup(&attr, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&attr, flags);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    const std::string cmd = "'" + request.argv[0] + "'";
    if (rc == ENOENT || rc == ENOTDIR)
      return SpawnError{127, cmd + ": command not found" +
                                 (request.argv[0].find('/') == std::string::npos ? " (searched PATH)" : "")};
    if (rc == EACCES || rc == ENOEXEC || rc == EPERM || rc == EISDIR)
      return SpawnError{126, cmd + ": cannot be executed: " + std::strerror(rc)};
    return SpawnError{1, cmd + ": cannot be started: " + std::strerror(rc)};
  }
  pid_ = pid;
  ownGroup_ = request.ownProcessGroup;
  status_.reset();
  detached_ = false;
  return std::nullopt;
}

std::optional<ExitStatus> ChildProcess::poll() {
  if (status_ || pid_ <= 0 || detached_) return status_;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = ExitStatus::fromWaitStatus(status);
  return status_;
}

ExitStatus ChildProcess::wait() {
  while (!status_ && pid_ > 0 && !detached_) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, 0);
    if (r == pid_) status_ = ExitStatus::fromWaitStatus(status);
    if (r < 0 && errno != EINTR) break;
  }
  return status_.value_or(ExitStatus{});
}

bool ChildProcess::signal(int sig) const {
  if (pid_ <= 0 || status_ || detached_) return false;
  return ::kill(ownGroup_ ? -pid_ : pid_, sig) == 0;
}

void ChildProcess::detach() {
  if (!running()) return;
  detached_ = true;
  std::thread([pid = pid_] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }).detach();
}

}  // namespace pipescope::record
