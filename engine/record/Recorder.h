#pragma once
// Records a program pipescope did not write: starts it with CUDA's injection hook
// pointing at libpipescope-inject.so and a private UNIX socket named in its
// environment, accepts a connection from every process of it that initialises CUDA,
// and feeds what they send into a live Trace (RecordAssembler) on a reader thread,
// publishing as it goes, so the views and a TraceStreamWriter see a recording grow
// like a run.
//
// The recording ends when the program has exited and its processes have closed their
// streams (a process still running a moment later is left out, with a note), or on
// stopRecording(). Stopping never touches the program: its sends then fail quietly
// and it runs on. The program stays this object's child until it is waited for; if it
// still runs when this object goes, it is detached (reaped in the background).
//
// Time base: the recorded processes send CLOCK_MONOTONIC times (the injection asks
// CUPTI for them); the trace's zero is the monotonic time at start().
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "record/ChildProcess.h"
#include "record/RecordAssembler.h"
#include "trace/Trace.h"

namespace pipescope::record {

struct RecordRequest {
  std::vector<std::string> command;  ///< the program and its arguments, exactly as given
  std::string workingDirectory;      ///< empty: this process's
  std::map<std::string, std::string> environment;  ///< extra variables for the program
  std::string injectLibrary;         ///< libpipescope-inject.so (findInjectionLibrary)
  int device = -1;                   ///< >= 0: only that CUDA device's work is recorded
  bool ownProcessGroup = false;      ///< the GUI: its own group, so "end the program" reaches all of it,
                                     ///< and no standard input
  std::uint64_t maxOps = 0;          ///< bounded live window (0: keep everything)
  bool keepUntilStreamed = false;    ///< a TraceStreamWriter will be attached right after start()
  /// How long processes may still send after the program exited.
  std::chrono::milliseconds drainAfterExit{2000};
};

/// Thrown by start(): the program could not be started (exitCode: 127, 126 as a shell) or
/// the recording could not be set up (exitCode 1).
class RecordStartError : public std::runtime_error {
 public:
  RecordStartError(const std::string& what, int exitCode) : std::runtime_error(what), exitCode_(exitCode) {}
  int exitCode() const { return exitCode_; }

 private:
  int exitCode_;
};

class Recorder {
 public:
  explicit Recorder(RecordRequest request);
  ~Recorder();  ///< stops recording; a program still running goes on (detached)
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Starts the program and the recording; throws RecordStartError.
  std::shared_ptr<Trace> start();
  /// Whether the recording is still live (not whether the program runs).
  bool recording() const { return recording_.load(std::memory_order_acquire); }
  /// Ends the recording at once; the program is not touched and runs on.
  void stopRecording();
  /// Asks the program to end (SIGTERM, to its group when it has its own); the
  /// recording goes on until it has exited.
  void endProgram();
  /// Sends `signal` to the program (SIGTERM/SIGHUP forwarded by the CLI).
  void forwardSignal(int signal);
  /// After the recording: nothing here waits for the program any more; it is reaped in
  /// the background when it ends (the GUI's Stop leaves it running).
  void detachProgram();
  /// Blocks until the recording has ended.
  void waitForRecording();
  /// Blocks until the program has ended (after the recording, when it was stopped early).
  ExitStatus waitForProgram();
  pid_t programPid() const { return child_.pid(); }
  /// The program's exit status, once known.
  std::optional<ExitStatus> programStatus() const;

  std::shared_ptr<Trace> trace() const { return trace_; }
  /// A copy of what the recording knows about each process (any thread).
  std::vector<RecordedProcess> processes() const;
  /// After the recording: what the user should be told (no process used CUDA, a
  /// process whose stream broke, what the injection reported).
  std::vector<std::string> findings() const;
  /// After the recording: how long GPU ops took from their end on the GPU to reaching
  /// this process (ArrivalLatency.h).
  ArrivalLatency arrivalLatency() const;
  /// "python3 train.py --epochs 2" (arguments with spaces quoted).
  std::string commandText() const;

 private:
  void readLoop(std::stop_token stop);
  void finishRecording(bool stoppedByUser);

  RecordRequest request_;
  std::shared_ptr<Trace> trace_;
  std::unique_ptr<RecordAssembler> assembler_;  // the reader thread's, until it ends
  ChildProcess child_;
  mutable std::mutex mutex_;  // guards the copies below and the child's status
  std::vector<RecordedProcess> processes_;
  std::optional<ExitStatus> status_;
  ArrivalLatency arrival_;
  std::string socketDir_, socketPath_;
  int listenFd_ = -1;
  int wakeFd_[2] = {-1, -1};
  std::int64_t origin_ = 0;
  std::atomic<bool> recording_{false};
  std::atomic<bool> stopRequested_{false};
  bool stoppedByUser_ = false;
  std::jthread reader_;
};

}  // namespace pipescope::record
