#include "ranks/RankFiles.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "io/TraceFiles.h"

namespace pipescope {

namespace {

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

RankInfo rankOf(const Trace& trace, const std::string& file) {
  auto ranks = trace.ranks();
  RankInfo r = ranks.empty() ? RankInfo{} : ranks.front();
  r.source = file;
  return r;
}

// Ranks of one job agree on these; a file that differs belongs to another job.
std::string jobKey(const RankInfo& r) {
  if (r.rank < 0) return "no distributed info";
  return "world size " + std::to_string(r.worldSize) + (r.backend.empty() ? "" : ", " + r.backend) +
         (r.groups.empty() ? "" : ", groups " + r.groups);
}

struct Loaded {
  std::shared_ptr<Trace> trace;
  std::string error;
  RankInfo rank;
};

void loadAll(const std::vector<std::string>& files, const ImportOptions& options, const LoadControl& control,
             std::vector<Loaded>& out) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> cancelled{false};
  const LoadControl inner{nullptr, control.cancel};
  auto work = [&](bool reports) {
    for (std::size_t i = next++; i < files.size() && !cancelled; i = next++) {
      try {
        out[i].trace = loadTraceFile(files[i], options, inner);
      } catch (const TraceLoadCancelled&) {
        cancelled = true;
      } catch (const std::exception& e) {
        out[i].error = e.what();
      }
      ++done;
      // Progress is reported from the calling thread only: callers' callbacks (the
      // app's progress dialog) need not be thread-safe.
      if (reports) control.report(0.9 * double(done) / double(files.size()));
    }
  };
  const std::size_t helpers =
      std::min<std::size_t>(files.size(), std::max(1u, std::thread::hardware_concurrency())) - 1;
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < helpers; ++i) threads.emplace_back(work, false);
  work(true);
  for (auto& t : threads) t.join();
  if (cancelled) throw TraceLoadCancelled();
}

}  // namespace

std::vector<std::string> rankFilesAt(const std::string& path) {
  if (!std::filesystem::is_directory(path)) return {path};
  auto files = profilerTraceFilesIn(path);
  if (files.empty())
    throw TraceFileError("'" + path + "': a folder with no PyTorch profiler trace (*.pt.trace.json or " +
                         "*.pt.trace.json.gz, as torch.profiler.tensorboard_trace_handler writes them)");
  return files;
}

RankSet loadRankFiles(const std::vector<std::string>& files, const ImportOptions& options,
                      const LoadControl& control) {
  control.report(0.0);
  std::vector<Loaded> loaded(files.size());
  loadAll(files, options, control, loaded);

  RankSet set;
  std::vector<std::size_t> ok;
  std::string failures;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!loaded[i].trace) {
      failures += "\n  " + loaded[i].error;
      set.problems.push_back("left out, it cannot be read: " + loaded[i].error);
      continue;
    }
    loaded[i].rank = rankOf(*loaded[i].trace, files[i]);
    ok.push_back(i);
  }
  if (ok.empty()) throw TraceFileError("none of the " + std::to_string(files.size()) + " files can be read:" + failures);

  // One job: the largest group of files that agree on world size and groups.
  std::map<std::string, std::vector<std::size_t>> jobs;
  for (std::size_t i : ok) jobs[jobKey(loaded[i].rank)].push_back(i);
  const std::vector<std::size_t>* kept = &jobs[jobKey(loaded[ok.front()].rank)];
  for (const auto& [key, members] : jobs)
    if (members.size() > kept->size()) kept = &members;
  const std::string keptKey = jobKey(loaded[kept->front()].rank);
  for (const auto& [key, members] : jobs) {
    if (&members == kept) continue;
    for (std::size_t i : members)
      set.problems.push_back("'" + fileName(files[i]) + "' is of another job (" + key + ", not " + keptKey +
                             " like the " + std::to_string(kept->size()) + " files kept): left out");
  }

  std::vector<std::size_t> members = *kept;
  const bool distributed = loaded[members.front()].rank.rank >= 0;
  if (!distributed) {
    // No rank in the files: their order stands for it, and the merge says so.
    if (members.size() > 1)
      set.problems.push_back("the files carry no distributed info (rank, world size): ranks numbered in file-name "
                             "order, 0 to " + std::to_string(members.size() - 1));
    for (std::size_t k = 0; k < members.size(); ++k) loaded[members[k]].rank.rank = int(k);
  }
  std::stable_sort(members.begin(), members.end(),
                   [&](std::size_t a, std::size_t b) { return loaded[a].rank.rank < loaded[b].rank.rank; });
  std::vector<std::size_t> unique;
  for (std::size_t i : members) {
    if (!unique.empty() && loaded[unique.back()].rank.rank == loaded[i].rank.rank) {
      set.problems.push_back("rank " + std::to_string(loaded[i].rank.rank) + " appears in '" +
                             fileName(files[unique.back()]) + "' and '" + fileName(files[i]) +
                             "': the second is left out");
      continue;
    }
    unique.push_back(i);
  }

  set.worldSize = distributed ? loaded[unique.front()].rank.worldSize : int(unique.size());
  if (distributed && set.worldSize > 0) {
    std::string missing;
    int missingCount = 0;
    std::size_t k = 0;
    for (int r = 0; r < set.worldSize; ++r) {
      while (k < unique.size() && loaded[unique[k]].rank.rank < r) ++k;
      if (k < unique.size() && loaded[unique[k]].rank.rank == r) continue;
      if (++missingCount <= 16) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    if (missingCount > 0)
      set.problems.push_back("rank" + std::string(missingCount > 1 ? "s " : " ") + missing +
                             (missingCount > 16 ? ", ..." : "") + " of " + std::to_string(set.worldSize) +
                             (missingCount > 1 ? " have" : " has") +
                             " no file: the figures cover the " + std::to_string(unique.size()) + " ranks found");
  }

  // A rank with fewer iterations than the others stopped early (a crash, a kill).
  std::int64_t most = 0;
  for (std::size_t i : unique) most = std::max(most, loaded[i].trace->iterations().count);
  for (std::size_t i : unique) {
    const std::int64_t n = loaded[i].trace->iterations().count;
    if (n < most)
      set.problems.push_back("rank " + std::to_string(loaded[i].rank.rank) + " ('" + fileName(files[i]) + "') has " +
                             std::to_string(n) + " of " + std::to_string(most) +
                             " iterations: cut short; later iterations cover the other ranks only");
  }
  for (std::size_t i : unique) {
    auto infos = loaded[i].trace->ranks();
    if (infos.empty()) infos.push_back(loaded[i].rank);
    infos.front().rank = loaded[i].rank.rank;
    infos.front().source = files[i];
    loaded[i].trace->setRanks(infos);
    set.ranks.push_back(loaded[i].trace);
  }
  control.report(0.9);
  return set;
}

}  // namespace pipescope
