#pragma once
// One trace from the traces of a job's ranks: every rank a group of lanes (its GPU
// engines and streams, its CUDA-calling thread, its other threads) on one device of
// the merged trace, all on one clock (ClockAlignment), iterations matched by number.
#include <memory>
#include <string>
#include <vector>

#include "io/ImportOptions.h"
#include "io/TraceFileError.h"
#include "ranks/RankFiles.h"
#include "trace/Trace.h"

namespace pipescope {

/// Merges `set` (RankFiles), aligning the ranks' clocks; `source` names the folder or
/// files in messages. The merged trace's ranks() say each rank's device, offset and
/// alignment; its outcome message lists the set's problems. `clockProblems`, when
/// given, receives one line per rank whose clock could not be aligned ("rank 2: clock
/// not aligned (...)").
std::shared_ptr<Trace> mergeRanks(const RankSet& set, const std::string& source,
                                  std::vector<std::string>* clockProblems = nullptr);

/// True when `paths` stand for several ranks: more than one path, or a folder with
/// more than one profiler trace (and no `worker` choosing one of them).
bool opensAsRanks(const std::vector<std::string>& paths, const std::string& worker = {});

/// Reads and merges the ranks `paths` stand for (folders and files). `problems`, when
/// given, receives what was wrong with the set, clocks that could not be aligned
/// included (also in the trace's outcome message).
std::shared_ptr<Trace> loadRanks(const std::vector<std::string>& paths, const ImportOptions& options = {},
                                 const LoadControl& control = {}, std::vector<std::string>* problems = nullptr);

}  // namespace pipescope
