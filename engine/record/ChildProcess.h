#pragma once
// The program pipescope records: started with posix_spawnp (the PATH search and the
// errors a shell reports: 127 for a command that is not found, 126 for one that
// cannot be executed), watched without blocking, signalled, and its exit status told
// the way a shell tells it.
#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pipescope::record {

struct SpawnRequest {
  std::vector<std::string> argv;      ///< argv[0] is searched in PATH unless it has a '/'
  std::string workingDirectory;       ///< empty: this process's
  std::map<std::string, std::string> environment;  ///< set (or replaced) on top of this process's
  bool ownProcessGroup = false;       ///< its own process group (the GUI); else ours, so Ctrl-C reaches it
  /// Standard input from /dev/null (the GUI: a program in a background process group
  /// that read the terminal would be stopped).
  bool noInput = false;
};

/// Why a program could not be started, with the status a shell would exit with.
struct SpawnError {
  int exitCode = 127;   ///< 127: not found, 126: found but not executable, 1: anything else
  std::string message;  ///< "'trian.py': command not found"
};

/// How a program ended, as a shell tells it.
struct ExitStatus {
  bool signalled = false;
  int code = 0;    ///< exit code, or the signal number when signalled
  bool coreDumped = false;
  /// The shell's $?: the code, or 128 + the signal.
  int shellCode() const { return signalled ? 128 + code : code; }
  /// "exited with status 0", "was killed by signal 11 (Segmentation fault)".
  std::string describe() const;
  static ExitStatus fromWaitStatus(int status);
};

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();  ///< never kills: a detached program goes on; a finished one is reaped
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Starts the program; nullopt on success, else why not.
  std::optional<SpawnError> start(const SpawnRequest& request);
  pid_t pid() const { return pid_; }
  /// Checks without waiting; the exit status once it has ended.
  std::optional<ExitStatus> poll();
  /// Waits for the end.
  ExitStatus wait();
  std::optional<ExitStatus> status() const { return status_; }
  /// Started, not known to have ended, and not detached.
  bool running() const { return pid_ > 0 && !status_ && !detached_; }
  /// Sends `signal` to the program (its whole process group when it has its own); never
  /// once detached (its pid may belong to another process by then).
  bool signal(int signal) const;
  /// From now on nothing waits for it here; a background thread reaps it when it ends,
  /// so it leaves no zombie behind while this process lives.
  void detach();

 private:
  pid_t pid_ = -1;
  bool ownGroup_ = false;
  bool detached_ = false;
  std::optional<ExitStatus> status_;
};

}  // namespace pipescope::record
