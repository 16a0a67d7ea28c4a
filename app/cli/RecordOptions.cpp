#include "RecordOptions.h"

#include <cmath>

#include "TraceOutput.h"

namespace pipescope::cli {

namespace {

/// Splits record's own arguments from the program's: the program starts after "--"
/// or at the first word that is neither an option nor an option's value.
void split(const OptionSet& options, const std::vector<std::string>& args, std::vector<std::string>& own,
           std::vector<std::string>& program) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      program.assign(args.begin() + std::ptrdiff_t(i) + 1, args.end());
      return;
    }
    if (a.rfind("-", 0) != 0 || a == "-") {
      program.assign(args.begin() + std::ptrdiff_t(i), args.end());
      return;
    }
    own.push_back(a);
    if (a.find('=') != std::string::npos) continue;
    const Option* o = a.rfind("--", 0) == 0 ? options.find(std::string_view(a).substr(2)) : nullptr;
    if (o != nullptr && !o->valueName.empty() && i + 1 < args.size()) own.push_back(args[++i]);
  }
}

}  // namespace

RecordOptionParser::RecordOptionParser() {
  auto& o = options_;
  auto& r = request_;
  o.group("Recording");
  o.value("trace", "FILE",
          "write the recording to FILE (" + traceFormatHelp() +
              "). A native trace is streamed while the program runs, synced to disk at least once a second, so a "
              "crash of either side keeps what was recorded; when the recording ends it is replaced by the "
              "finished trace (with its iterations)",
          [&r](const std::string& v) {
            if (v.empty()) throw UsageError("--trace needs a file name");
            r.tracePath = v;
          });
  o.value("duration", "S",
          "stop recording after S seconds (0.1 to 604800); the program runs on and pipescope waits for it to end",
          [&r](const std::string& v) {
            const double s = parseNumber("duration", v);
            if (!(s >= 0.1 && s <= 604800))
              throw UsageError("--duration = '" + v + "': allowed 0.1 to 604800 seconds");
            r.durationSeconds = s;
          });
  o.value("device", "N",
          "record only the work of CUDA device N (as the program numbers its devices); host threads are "
          "recorded in full",
          [&r](const std::string& v) { r.device = int(parseInteger("device", v, 0, 1023)); });
  o.value("max-ops", "N",
          "keep at most about N ops in memory, 0..10^10 (default 4194304; 0 = keep all): a long recording's memory "
          "stays bounded, the --trace file still gets every op, and the summary covers the ops kept",
          [&r](const std::string& v) { r.maxOps = std::uint64_t(parseInteger("max-ops", v, 0, 10'000'000'000)); });
  o.flag("quiet", "no progress line and no summary; what went wrong, and what the recording found (a program "
                  "that never used CUDA), is still said",
         [&r] { r.quiet = true; });
  o.flag("progress", "show the progress line also when standard error is not a terminal", [&r] { r.progress = true; });
  o.group("Analysis (as 'pipescope-cli analyze' does for an opened trace)");
  o.value("iteration-marker", "NAME",
          "the NVTX range that starts an iteration, when the automatic choice (ProfilerStep#N, else the first "
          "range of a repeating sequence) is wrong",
          [&r](const std::string& v) {
            if (v.empty()) throw UsageError("--iteration-marker needs the name of a range");
            r.import.iterations.marker = v;
          });
  o.value("batch-size", "N", "samples per iteration, for samples/s and the derived configuration (1..1048576)",
          [&r](const std::string& v) { r.import.batchSize = parseInteger("batch-size", v, 1, 1 << 20); });
  o.value("profile", "NAME|FILE",
          "device profile for the derived configuration and the advice (default: the calibrated built-in profile "
          "of the recorded GPU, else h200; the summary says which)",
          [&r](const std::string& v) { r.report.profile = v; });
  o.value("derive-config", "FILE.json",
          "write the pipescope configuration that reproduces one iteration on the simulator; "
          "'pipescope-cli sweep --config FILE.json' sweeps it",
          [&r](const std::string& v) {
            if (v.empty()) throw UsageError("--derive-config needs a file name");
            r.report.derivePath = v;
          });
  o.flag("no-advice", "skip the derived configuration and the advice (no simulations)",
         [&r] { r.report.noAdvice = true; });
}

bool RecordOptionParser::wantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
    if (a.rfind("-", 0) != 0) return false;  // the program's arguments begin
  }
  return false;
}

RecordCommandRequest RecordOptionParser::parse(const std::vector<std::string>& args) {
  request_ = RecordCommandRequest{};
  std::vector<std::string> own, program;
  split(options_, args, own, program);
  options_.parse(own);
  if (program.empty() || program[0].empty())
    throw UsageError("missing the program to record: pipescope-cli record [OPTIONS] -- PROGRAM [ARGUMENTS...]");
  request_.command = program;
  return request_;
}

std::string RecordOptionParser::help() const {
  return "usage: pipescope-cli record [OPTIONS] -- PROGRAM [ARGUMENTS...]\n\n"
         "Runs PROGRAM and records what it does on the GPU: every kernel, copy (with its host memory: pageable,\n"
         "pinned or managed), memset and synchronisation, the CUDA calls of each host thread and its NVTX ranges,\n"
         "through CUDA's injection hook and CUPTI (no change to the program). Every process of it that uses CUDA\n"
         "is recorded, each its own group of lanes. A progress line shows ops, kernels/s and GPU busy as it\n"
         "runs; at the end, the summary 'analyze' prints: iterations (NVTX ranges or ProfilerStep#N), limits,\n"
         "wait causes and advice.\n\n"
         "PROGRAM's standard input, output and error are its own, as without pipescope. Ctrl-C reaches it\n"
         "through the terminal as usual, and pipescope records until it exits; a second Ctrl-C ends pipescope\n"
         "at once (a --trace file keeps what was recorded). SIGTERM and SIGHUP sent to pipescope are passed on\n"
         "to PROGRAM, and the recording goes on until it exits. Everything after '--' is PROGRAM's, exactly as\n"
         "given.\n" +
         options_.help() +
         "\nExit status: PROGRAM's (128 + N when a signal N ended it); 127 when PROGRAM is not found, 126 when it\n"
         "cannot be executed (as a shell); 2 for a bad command line; 1 when the recording could not be made or\n"
         "written while PROGRAM succeeded.\n"
         "Example: pipescope-cli record --trace train.pipescope -- python3 train.py\n";
}

}  // namespace pipescope::cli
