// `pipescope-cli record -- PROGRAM ARGS...`: runs a program the user wrote, records
// what it does on the GPU (record/Recorder.h), shows a progress line, and prints the
// analysis `analyze` prints for an opened trace. Ends with the program's exit status.
#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <thread>

#include "ChildSignals.h"
#include "Commands.h"
#include "InterruptGuard.h"
#include "RecordOptions.h"
#include "RecordProgress.h"
#include "TraceOutput.h"
#include "TraceReport.h"
#include "io/TraceStreamWriter.h"
#include "record/InjectionLibrary.h"
#include "record/Recorder.h"
#include "record/RecordingAnalysis.h"

namespace pipescope::cli {

namespace {

constexpr const char* kName = "pipescope-cli record: ";

std::string processList(const std::vector<record::RecordedProcess>& processes) {
  std::string s;
  for (std::size_t i = 0; i < processes.size() && i < 4; ++i) s += (s.empty() ? "" : ", ") + processes[i].label();
  if (processes.size() > 4) s += ", ...";
  return s;
}

int recordMain(const std::vector<std::string>& args) {
  RecordOptionParser parser;
  if (RecordOptionParser::wantsHelp(args)) {
    std::cout << parser.help();
    return kExitOk;
  }
  RecordCommandRequest req;
  try {
    req = parser.parse(args);
  } catch (const UsageError& e) {
    std::cerr << kName << e.what() << "\nSee 'pipescope-cli record --help'.\n";
    return kExitUsage;
  }
  std::string whyNot;
  const auto library = record::findInjectionLibrary(whyNot);
  if (!library) {
    std::cerr << kName << "cannot record: " << whyNot << "\n";
    return kExitRunFailed;
  }

  InterruptGuard interrupt;  // Ctrl-C: the program gets it from the terminal; we record until it exits
  ChildSignals forward;
  record::RecordRequest request;
  request.command = req.command;
  request.injectLibrary = *library;
  request.device = req.device;
  request.maxOps = req.maxOps;
  const bool stream = !req.tracePath.empty() && streamsTrace(req.tracePath);
  request.keepUntilStreamed = stream;
  record::Recorder recorder(request);
  std::shared_ptr<Trace> trace;
  try {
    trace = recorder.start();
  } catch (const record::RecordStartError& e) {
    std::cerr << kName << e.what() << "\n";
    return e.exitCode();
  }
  forward.setChild(recorder.programPid());
  std::unique_ptr<TraceStreamWriter> writer;
  if (stream) {
    try {
      writer = std::make_unique<TraceStreamWriter>(trace, req.tracePath);
    } catch (const std::exception& e) {
      // The program is already running: it goes on, unrecorded, and its status is ours.
      std::cerr << kName << e.what() << "; the program runs on without being recorded\n";
      recorder.stopRecording();
      const int code = recorder.waitForProgram().shellCode();
      return code == 0 ? kExitRunFailed : code;
    }
  }

  const auto started = std::chrono::steady_clock::now();
  RecordProgress progress(!req.quiet && (req.progress || ::isatty(STDERR_FILENO)), ::isatty(STDERR_FILENO) != 0);
  bool toldInterrupt = false, durationOver = false;
  while (recorder.recording()) {
    if (!toldInterrupt && interrupt.interrupted()) {
      toldInterrupt = true;
      progress.finish();
      std::cerr << kName << "interrupted: the program got the interrupt too; recording until it exits (Ctrl-C "
                << "again ends pipescope at once" << (req.tracePath.empty() ? "" : "; " + req.tracePath + " keeps "
                                                                                    "what was recorded")
                << ")\n";
    }
    if (!durationOver && req.durationSeconds > 0 &&
        std::chrono::steady_clock::now() - started >= std::chrono::duration<double>(req.durationSeconds)) {
      durationOver = true;
      recorder.stopRecording();
    }
    progress.update(*trace, recorder.processes().size());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  recorder.waitForRecording();
  progress.finish();

  int exitCode = kExitOk;
  // The finished recording, with its iterations, replaces what was streamed.
  const auto analysed = record::analysedRecording(*trace, req.import);
  if (writer) {
    try {
      writer->finish();
    } catch (const std::exception& e) {
      std::cerr << kName << e.what() << "\n";
      exitCode = kExitRunFailed;
    }
  }
  // With ops dropped from memory, the streamed file is the only whole recording: it stays.
  const bool wholeInMemory = trace->ops().droppedCount() == 0;
  if (!wholeInMemory && writer && !req.quiet)
    std::cerr << kName << req.tracePath << " holds the whole recording (" << writer->opsWritten()
              << " ops, without iterations); the summary covers the last "
              << trace->ops().publishedCount() - trace->ops().droppedCount() << " ops, those kept in memory (--max-ops)\n";
  if (!req.tracePath.empty() && exitCode == kExitOk && (wholeInMemory || !writer)) {
    try {
      saveTrace(*analysed, req.tracePath);
    } catch (const std::exception& e) {
      std::cerr << kName << e.what() << (writer ? " (the streamed recording, without iterations, stays)" : "") << "\n";
      exitCode = kExitRunFailed;
    }
  }

  const auto processes = recorder.processes();
  if (!req.quiet && analysed->ops().publishedCount() > 0) {
    std::cerr << "Recording of " << recorder.commandText() << ": " << processes.size()
              << (processes.size() == 1 ? " process (" : " processes (") << processList(processes) << "), "
              << analysed->laneCount() << " lanes, " << analysed->ops().publishedCount() << " ops"
              << (req.tracePath.empty() ? "" : ", written to " + req.tracePath) << "\n";
    try {
      const TraceReport report = analyseTrace(*analysed, req.report);
      printTraceReport(std::cerr, *analysed, report, req.report);
      if (std::string error; !writeDerivedConfig(*analysed, report, req.report, error)) {
        std::cerr << kName << error << "\n";
        exitCode = kExitRunFailed;
      }
    } catch (const UsageError& e) {
      std::cerr << kName << e.what() << "\n";
      exitCode = kExitRunFailed;
    }
  }
  for (const auto& finding : recorder.findings()) std::cerr << kName << finding << "\n";
  if (const record::ArrivalLatency arrival = recorder.arrivalLatency(); !req.quiet && arrival.count() > 0)
    std::cerr << kName << "GPU ops reached pipescope " << std::fixed << std::setprecision(1) << arrival.quantileMs(0.5)
              << " ms after they ended on the GPU (median; 95 %: " << arrival.quantileMs(0.95) << " ms, most "
              << arrival.maxMs() << " ms; " << arrival.count() << " ops)\n"
              << std::defaultfloat;

  if (durationOver && !recorder.programStatus()) {
    if (!req.quiet)
      std::cerr << kName << "recording stopped after " << req.durationSeconds
                << " s; waiting for the program (pid " << recorder.programPid() << ") to end\n";
  }
  const record::ExitStatus status = recorder.waitForProgram();
  if (!req.quiet || status.shellCode() != 0) std::cerr << kName << "the program " << status.describe() << "\n";
  if (const int sig = ChildSignals::forwarded(); sig != 0 && !req.quiet)
    std::cerr << kName << "signal " << sig << " sent to pipescope was passed on to the program\n";
  const int programCode = status.shellCode();
  return programCode != 0 ? programCode : exitCode;
}

const bool registered = registerCommand(
    {"record", "run a CUDA program of yours and record its GPU timeline live (CUPTI injection), then analyse it",
     recordMain, /*stopsOnInterrupt=*/true});

}  // namespace

}  // namespace pipescope::cli
