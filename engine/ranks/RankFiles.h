#pragma once
// The files of one distributed job, one trace per rank (torch.profiler's
// tensorboard_trace_handler writes one per worker into a folder). Each file is read
// through the one import path; what is wrong with the set — files of another job,
// a missing or duplicated rank, a rank cut short, a file that cannot be read — is
// said in a message naming the files, and the rest is kept.
#include <memory>
#include <string>
#include <vector>

#include "io/ImportOptions.h"
#include "io/TraceFileError.h"
#include "trace/Trace.h"

namespace pipescope {

struct RankSet {
  /// One trace per rank kept, in rank order (RankInfo::rank; files of a job without
  /// distributed info are numbered in file-name order).
  std::vector<std::shared_ptr<Trace>> ranks;
  int worldSize = 0;                  ///< as the files say; 0 when they do not
  std::vector<std::string> problems;  ///< one sentence each, naming the files
};

/// The rank files a path stands for: a folder's profiler traces (*.pt.trace.json[.gz]),
/// or the file itself. Throws TraceFileError when a folder holds none.
std::vector<std::string> rankFilesAt(const std::string& path);

/// Reads `files` (in parallel, up to the machine's cores) and keeps one job's ranks.
/// Throws TraceFileError when no file can be read (the message lists why for each),
/// TraceLoadCancelled when `control` asks.
RankSet loadRankFiles(const std::vector<std::string>& files, const ImportOptions& options = {},
                      const LoadControl& control = {});

}  // namespace pipescope
