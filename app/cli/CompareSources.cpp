#include "CompareSources.h"

#include <filesystem>
#include <stdexcept>

#include "Options.h"
#include "RunOptions.h"
#include "io/TraceFiles.h"

namespace pipescope::cli {

std::vector<std::string> runSpecArguments(const std::string& spec) {
  std::vector<std::string> args;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', pos), spec.size());
    const std::string item = spec.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (key.empty()) throw UsageError("run spec '" + spec + "': '" + item + "' has no option name before '='");
    args.push_back("--" + key);
    if (eq != std::string::npos) args.push_back(item.substr(eq + 1));
  }
  if (args.empty())
    throw UsageError("run spec '" + spec + "' is empty: give run options, e.g. preset=pinned,streams=4");
  return args;
}

namespace {

ComparedRun runSpec(const std::string& source, const std::string& spec) {
  // Specs run on the simulator unless they say otherwise: comparisons must work on a
  // laptop without a GPU and be repeatable.
  std::vector<std::string> args{"--backend", "sim"};
  const auto specArgs = runSpecArguments(spec);
  args.insert(args.end(), specArgs.begin(), specArgs.end());
  RunOptionParser parser;
  RunRequest req;
  try {
    req = parser.parse(args);
  } catch (const UsageError& e) {
    throw UsageError("run spec '" + spec + "': " + e.what());
  } catch (const std::exception& e) {
    throw UsageError("run spec '" + spec + "': " + e.what());
  }
  if (req.config.runsUntilStopped())
    throw UsageError("run spec '" + spec + "': batches=0 runs until stopped; give a batch count to compare");
  if (auto issues = validate(req.config); !issues.empty())
    throw UsageError("run spec '" + spec + "': invalid configuration: " + req.origins.describe(issues.front()));
  BackendSelection selection = makeBackend(req.backend);
  if (!selection.backend) throw std::runtime_error("run spec '" + spec + "': " + selection.error);
  ComparedRun r;
  r.source = source;
  r.kind = "run";
  r.trace = std::make_shared<Trace>();
  r.trace->setConfig(req.config);
  r.trace->setDevice(selection.backend->describe());
  RunControl control;
  const RunOutcome outcome = selection.backend->run(req.config, *r.trace, control);
  r.trace->setOutcome(outcome);
  if (outcome.state == RunState::Failed)
    throw std::runtime_error("run spec '" + spec + "': the run failed: " + outcome.message);
  r.metrics = computeMetrics(*r.trace);
  return r;
}

}  // namespace

ComparedRun loadComparedRun(const std::string& source) {
  if (source.empty()) throw UsageError("an empty source: give a trace file or a run spec such as preset=naive");
  std::string rest = source;
  bool forceTrace = false, forceRun = false;
  if (rest.rfind("trace:", 0) == 0)
    forceTrace = true, rest = rest.substr(6);
  else if (rest.rfind("run:", 0) == 0)
    forceRun = true, rest = rest.substr(4);
  std::error_code ec;
  const bool isFile = std::filesystem::is_regular_file(rest, ec);
  if (forceTrace || (!forceRun && (isFile || rest.find('=') == std::string::npos))) {
    if (!isFile && !forceTrace && rest.find('=') == std::string::npos && !std::filesystem::exists(rest, ec))
      throw std::runtime_error("'" + rest + "' is neither a trace file (no such file) nor a run spec (no key=value)");
    ComparedRun r;
    r.source = source;
    r.kind = "trace";
    r.trace = loadTraceFile(rest);
    r.metrics = computeMetrics(*r.trace);
    return r;
  }
  return runSpec(source, rest);
}

}  // namespace pipescope::cli
