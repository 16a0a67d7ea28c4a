// Opening a job's per-rank PyTorch traces as one trace: real DDP fixtures of 2 and
// 4 ranks (tools/ddp-traces.py), balanced and with rank 1 slowed on purpose.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "io/TraceFiles.h"
#include "ranks/CollectiveMatch.h"
#include "ranks/RankAnalysis.h"
#include "ranks/RankFiles.h"
#include "ranks/RankMerge.h"

namespace pipescope {
namespace {

namespace fs = std::filesystem;

std::string ddp(const std::string& job) { return std::string(PIPESCOPE_FIXTURES_DIR) + "/ddp/" + job; }

struct Opened {
  std::shared_ptr<Trace> trace;
  std::vector<std::string> problems;
};

// Each fixture folder is read once for the whole suite: reading is what costs.
const Opened& opened(const std::string& job) {
  static std::map<std::string, Opened> cache;
  auto it = cache.find(job);
  if (it == cache.end()) {
    Opened o;
    o.trace = loadRanks({ddp(job)}, {}, {}, &o.problems);
    it = cache.emplace(job, std::move(o)).first;
  }
  return it->second;
}

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  std::array<char, 1 << 16> buf{};
  int n = 0;
  while ((n = gzread(f, buf.data(), unsigned(buf.size()))) > 0) out.append(buf.data(), std::size_t(n));
  gzclose(f);
  return out;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("pipescope-ranks-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<std::string> filesOf(const std::string& job) { return profilerTraceFilesIn(ddp(job)); }

std::int64_t ncclKernelTime(const Trace& t, int device) {
  std::int64_t sum = 0;
  for (const auto& c : collectiveCalls(t, 0, device)) sum += c.end - c.start;
  return sum;
}

TEST(RankTrace, FolderOfFourRanksOpensAsOneTraceWithAGroupPerRank) {
  const Opened& o = opened("ddp-w4-balanced");
  EXPECT_TRUE(o.problems.empty()) << o.problems.front();
  const auto ranks = o.trace->ranks();
  ASSERT_EQ(ranks.size(), 4u);
  ASSERT_EQ(o.trace->devices().size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(ranks[std::size_t(r)].rank, r);
    EXPECT_EQ(ranks[std::size_t(r)].worldSize, 4);
    EXPECT_EQ(ranks[std::size_t(r)].backend, "nccl");
    EXPECT_EQ(ranks[std::size_t(r)].groups, "default_pg [0, 1, 2, 3]");
    EXPECT_EQ(ranks[std::size_t(r)].device, r);
  }
  // Every rank brought its own streams, engines and CUDA-calling thread.
  std::map<int, std::map<LaneKind, int>> kinds;
  for (const Lane& l : o.trace->lanes()) ++kinds[l.device][l.kind];
  for (int r = 0; r < 4; ++r) {
    EXPECT_GE(kinds[r][LaneKind::Stream], 2) << "rank " << r;
    EXPECT_EQ(kinds[r][LaneKind::ComputeEngine], 1) << "rank " << r;
    EXPECT_GE(kinds[r][LaneKind::HostSubmit], 1) << "rank " << r;
  }
  EXPECT_EQ(kinds.count(-1), 0u) << "no lane is left outside a rank";
}

TEST(RankTrace, ClocksAreAlignedOnTheCollectives) {
  for (const char* job : {"ddp-w4-balanced", "ddp-w4-slowed"}) {
    const Opened& o = opened(job);
    for (const RankInfo& r : o.trace->ranks()) {
      EXPECT_NE(r.alignment.find(r.device == 0 ? "reference" : "aligned on"), std::string::npos)
          << job << " rank " << r.rank << ": " << r.alignment;
      // The ranks shared one host clock: the correction is small.
      EXPECT_LT(std::llabs(r.clockOffsetNs), 1'000'000) << job << " rank " << r.rank;
    }
    // After alignment the same collective ends together on every rank: at least two
    // all-reduces per iteration are found on all four.
    std::vector<std::vector<CollectiveCall>> calls;
    for (const RankInfo& r : o.trace->ranks()) calls.push_back(collectiveCalls(*o.trace, 0, r.device));
    const CollectiveMatch m = matchCollectives(calls);
    EXPECT_GE(m.calls.size(), 24u) << job << ": " << m.note;
  }
  // A rank that cannot be aligned says why and keeps its own time base.
  for (const RankInfo& r : opened("ddp-w2-balanced").trace->ranks())
    if (r.alignment.find("not aligned") != std::string::npos) {
      EXPECT_EQ(r.clockOffsetNs, 0);
      EXPECT_NE(r.alignment.find("own time base"), std::string::npos) << r.alignment;
    }
}

TEST(RankTrace, IterationsAreMatchedAcrossRanks) {
  const Opened& o = opened("ddp-w4-slowed");
  EXPECT_EQ(o.trace->completedBatches(), 12);
  const RankAnalysis a = analyzeRanks(*o.trace);
  ASSERT_EQ(a.iterations.size(), 12u);
  for (const RankIteration& it : a.iterations) {
    ASSERT_EQ(it.durationNs.size(), 4u);
    for (std::int64_t d : it.durationNs) EXPECT_GT(d, 0) << "iteration " << it.index;
  }
  for (const RankFigures& r : a.ranks) EXPECT_EQ(r.iterations, 12) << "rank " << r.rank;
}

// What the other ranks' GPUs measured waiting in the collectives: for each call found
// on every rank, a rank's NCCL kernel time beyond the call's own transfer time (its
// shortest kernel on any rank: the last rank to arrive finds everyone there and only
// moves the data). It is taken from the kernels' durations, not from their starts.
std::int64_t ncclWaitOfOthers(const Trace& t, int straggler) {
  std::vector<std::vector<CollectiveCall>> calls;
  for (const RankInfo& r : t.ranks()) calls.push_back(collectiveCalls(t, 0, r.device));
  std::int64_t sum = 0;
  for (const MatchedCollective& c : matchCollectives(calls).calls) {
    std::int64_t transfer = c.end[0] - c.start[0];
    for (std::size_t r = 0; r < c.start.size(); ++r) transfer = std::min(transfer, c.end[r] - c.start[r]);
    for (std::size_t r = 0; r < c.start.size(); ++r)
      if (int(r) != straggler) sum += c.end[r] - c.start[r] - transfer;
  }
  return sum;
}

TEST(RankTrace, StepsFollowEachOtherOnEveryRank) {
  // A step lasts from its ProfilerStep's start to the next one's (the last to its last
  // op): steps never overlap, so a rank's steps add up to no more than its trace.
  for (const char* job : {"ddp-w4-slowed", "ddp-w2-balanced"}) {
    const Trace& t = *opened(job).trace;
    const RankAnalysis a = analyzeRanks(t);
    const auto lanes = t.lanes();
    for (std::size_t i = 0; i < a.ranks.size(); ++i) {
      std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
      t.ops().snapshot().forEach([&](const Op& op) {
        if (op.lane < lanes.size() && lanes[op.lane].device == a.ranks[i].device)
          first = std::min(first, op.start), last = std::max(last, op.end);
      });
      std::int64_t steps = 0;
      for (const RankIteration& it : a.iterations) steps += it.durationNs[i];
      EXPECT_LE(steps, last - first) << job << " rank " << a.ranks[i].rank;
      EXPECT_GT(steps, (last - first) * 3 / 4) << job << " rank " << a.ranks[i].rank;
      EXPECT_NEAR(a.ranks[i].iterationMeanNs, double(steps) / 12.0, 1.0) << job << " rank " << a.ranks[i].rank;
    }
  }
}

TEST(RankTrace, TheSlowedRankIsTheStragglerAndItsCostMatchesTheOthersNcclTime) {
  for (const char* job : {"ddp-w4-slowed", "ddp-w2-slowed"}) {
    const Opened& o = opened(job);
    const RankAnalysis a = analyzeRanks(*o.trace);
    ASSERT_EQ(a.straggler, 1) << job << ": " << a.stragglerSentence;
    // Every step's two broadcasts and four all-reduces are the same calls on every rank,
    // the broadcasts included (their root leaves as soon as it has sent).
    EXPECT_GE(a.collectives, 72u) << job << ": " << a.matchNote;
    const RankFigures& slow = a.ranks[1];
    const double measured = double(ncclWaitOfOthers(*o.trace, 1));
    EXPECT_NEAR(double(slow.madeOthersWaitNs), measured, 0.10 * measured)
        << job << ": made others wait " << slow.madeOthersWaitNs << " ns, their NCCL kernels waited " << measured;
    // The others cannot have waited longer than they spent in their collectives.
    std::int64_t others = 0;
    for (const RankFigures& r : a.ranks)
      if (r.rank != 1) others += ncclKernelTime(*o.trace, r.device);
    EXPECT_LE(slow.madeOthersWaitNs, others) << job;
    EXPECT_GT(slow.madeOthersWaitNs, std::int64_t(a.ranks.size() - 1) * 12 * 12'000'000)
        << job << ": the slowed rank busy-waits 15 ms an iteration";
    for (const RankFigures& r : a.ranks) {
      if (r.rank != 1) {
        EXPECT_LT(r.madeOthersWaitNs, slow.madeOthersWaitNs / 10) << job << " rank " << r.rank;
      }
    }
    ASSERT_FALSE(a.whatIfs.empty()) << job;
    EXPECT_GT(a.whatIfs.front().speedup, 1.1) << a.whatIfs.front().sentence;
    int slowedIterations = 0;
    for (const RankIteration& it : a.iterations) slowedIterations += it.straggler == 1;
    EXPECT_GE(slowedIterations, 10) << job << ": of 12 iterations";
  }
}

TEST(RankTrace, AnIterationNamesAStragglerOnlyWhenItStandsOutAsTheJobsDoes) {
  // The overall rule applied to each iteration's collectives: its worst rank made the
  // others wait at least twice as long as the next, and kept each of them idle at
  // least 30 % of a step. In the jobs nobody slowed most iterations have none.
  for (const char* job : {"ddp-w4-balanced", "ddp-w2-balanced", "ddp-w4-slowed", "ddp-w2-slowed"}) {
    const RankAnalysis a = analyzeRanks(*opened(job).trace);
    const bool slowed = std::string(job).find("slowed") != std::string::npos;
    std::vector<double> means;
    for (const RankFigures& r : a.ranks) means.push_back(r.iterationMeanNs);
    std::sort(means.begin(), means.end());
    const double step =
        means.size() % 2 ? means[means.size() / 2] : 0.5 * (means[means.size() / 2 - 1] + means[means.size() / 2]);
    const std::size_t n = a.ranks.size();
    int named = 0;
    for (const RankIteration& it : a.iterations) {
      ASSERT_EQ(it.madeOthersWaitNs.size(), n) << job;
      ASSERT_EQ(it.madeOthersIdleNs.size(), n) << job;
      if (slowed) {
        EXPECT_EQ(it.straggler, 1) << job << " iteration " << it.index;
      }
      if (it.straggler < 0) {
        EXPECT_EQ(it.stragglerWaitNs, 0) << job << " iteration " << it.index;
        continue;
      }
      ++named;
      const auto s = std::size_t(it.straggler);
      EXPECT_EQ(it.stragglerWaitNs, it.madeOthersWaitNs[s]) << job << " iteration " << it.index;
      for (std::size_t r = 0; r < n; ++r) {
        if (r == s) continue;
        EXPECT_GE(it.madeOthersWaitNs[s], 2 * it.madeOthersWaitNs[r]) << job << " iteration " << it.index;
      }
      EXPECT_GE(double(it.madeOthersIdleNs[s]) / double(n - 1), 0.3 * step) << job << " iteration " << it.index;
    }
    if (!slowed) {
      EXPECT_LE(named, 2) << job << ": iterations of 12 that name a straggler";
    }
  }
  // The iterations' waits add up to nearly all of the rank's own (a collective outside
  // any ProfilerStep counts for the rank only).
  const RankAnalysis a = analyzeRanks(*opened("ddp-w4-slowed").trace);
  std::int64_t made = 0, idle = 0;
  for (const RankIteration& it : a.iterations) made += it.madeOthersWaitNs[1], idle += it.madeOthersIdleNs[1];
  EXPECT_LE(made, a.ranks[1].madeOthersWaitNs);
  EXPECT_GT(double(made), 0.95 * double(a.ranks[1].madeOthersWaitNs));
  EXPECT_LE(idle, a.ranks[1].madeOthersIdleNs);
  EXPECT_GT(double(idle), 0.95 * double(a.ranks[1].madeOthersIdleNs));
}

TEST(RankTrace, RanksNotSlowedOnPurposeWaitFarLessForEachOther) {
  // Even a job nobody slowed has ranks that reach a collective first and wait there;
  // the slowed job's straggler costs the others several times more.
  auto worstMade = [](const std::string& job) {
    const RankAnalysis a = analyzeRanks(*opened(job).trace);
    std::int64_t worst = 0;
    for (const RankFigures& r : a.ranks) worst = std::max(worst, r.madeOthersWaitNs);
    return worst;
  };
  EXPECT_LT(worstMade("ddp-w4-balanced") * 3, worstMade("ddp-w4-slowed"));
  EXPECT_LT(worstMade("ddp-w2-balanced") * 3, worstMade("ddp-w2-slowed"));
  const RankAnalysis slowed = analyzeRanks(*opened("ddp-w2-slowed").trace);
  EXPECT_EQ(slowed.straggler, 1) << slowed.stragglerSentence;
}

TEST(RankTrace, NoStragglerIsNamedInTheJobsNobodySlowed) {
  // Their ranks still reach a collective up to a millisecond apart (each host launches
  // its own backward pass), mostly while the waiting rank's GPU still computes.
  for (const char* job : {"ddp-w2-balanced", "ddp-w4-balanced"}) {
    const RankAnalysis a = analyzeRanks(*opened(job).trace);
    EXPECT_EQ(a.straggler, -1) << job << ": " << a.stragglerSentence;
    EXPECT_EQ(a.stragglerSentence.rfind("no straggler: the ranks arrive within ", 0), 0u)
        << job << ": " << a.stragglerSentence;
    EXPECT_TRUE(a.whatIfs.empty()) << job;
    EXPECT_GT(a.arrivalSpreadNs, 0) << job;
    EXPECT_LT(a.arrivalSpreadNs, 2'000'000) << job;
  }
}

TEST(RankTrace, ExposedCommunicationAgreesWithTheHtaDefinitionScript) {
  if (std::system("python3 -c 'import json, gzip' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 here";
  for (const char* job : {"ddp-w4-balanced", "ddp-w4-slowed", "ddp-w2-slowed"}) {
    const std::string cmd = "python3 " + std::string(PIPESCOPE_SOURCE_DIR) + "/tools/hta-exposed-comm.py " + ddp(job);
    FILE* pipe = ::popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    std::array<char, 4096> buf{};
    while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
    ASSERT_EQ(::pclose(pipe), 0) << text;
    const auto hta = nlohmann::json::parse(text)["ranks"];
    const RankAnalysis a = analyzeRanks(*opened(job).trace);
    for (const RankFigures& r : a.ranks) {
      const auto& h = hta[std::to_string(r.rank)];
      const double expected = h["exposed_communication_us"].get<double>() * 1000.0;
      EXPECT_NEAR(double(r.exposedCommunicationNs), expected, 0.02 * expected + 1000.0) << job << " rank " << r.rank;
      const double comm = h["communication_us"].get<double>() * 1000.0;
      EXPECT_NEAR(double(r.communicationNs), comm, 0.02 * comm + 1000.0) << job << " rank " << r.rank;
    }
  }
}

TEST(RankTrace, FilesOfAnotherJobAreLeftOutByName) {
  TempDir dir;
  for (const auto& f : filesOf("ddp-w4-balanced")) fs::copy(f, dir.path / fs::path(f).filename());
  const std::string stranger = filesOf("ddp-w2-balanced").front();
  fs::copy(stranger, dir.path / fs::path(stranger).filename());
  std::vector<std::string> problems;
  auto t = loadRanks({dir.path.string()}, {}, {}, &problems);
  EXPECT_EQ(t->ranks().size(), 4u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(fs::path(stranger).filename().string()), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("another job"), std::string::npos) << problems[0];
  EXPECT_NE(t->outcome().message.find("another job"), std::string::npos);
}

TEST(RankTrace, AMissingAndADuplicatedRankAreSaid) {
  TempDir dir;
  auto files = filesOf("ddp-w4-balanced");
  // Rank positions follow the files' distributed info, not their names: drop one
  // file and copy another under a second name.
  fs::copy(files[0], dir.path / fs::path(files[0]).filename());
  fs::copy(files[1], dir.path / fs::path(files[1]).filename());
  fs::copy(files[1], dir.path / ("zz-copy." + fs::path(files[1]).filename().string()));
  fs::copy(files[3], dir.path / fs::path(files[3]).filename());
  std::vector<std::string> problems;
  auto t = loadRanks({dir.path.string()}, {}, {}, &problems);
  ASSERT_EQ(t->ranks().size(), 3u);
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  EXPECT_NE(all.find("appears in"), std::string::npos) << all;
  EXPECT_NE(all.find("zz-copy."), std::string::npos) << all;
  EXPECT_NE(all.find("of 4 has no file"), std::string::npos) << all;
}

TEST(RankTrace, ARankCutShortAndAnUnreadableFileAreSaidAndTheRestIsKept) {
  TempDir dir;
  auto files = filesOf("ddp-w2-slowed");
  fs::copy(files[0], dir.path / fs::path(files[0]).filename());
  // Rank 1 stopped after its sixth step: its events end there.
  auto j = nlohmann::json::parse(gunzip(files[1]));
  std::int64_t cut = 0;
  for (const auto& e : j["traceEvents"])
    if (e.contains("name") && e["name"] == "ProfilerStep#7") cut = std::int64_t(e["ts"].get<double>());
  ASSERT_GT(cut, 0);
  nlohmann::json kept = nlohmann::json::array();
  for (auto& e : j["traceEvents"])
    if (!e.contains("ts") || e["ts"].get<double>() < double(cut)) kept.push_back(std::move(e));
  j["traceEvents"] = std::move(kept);
  std::ofstream(dir.path / "rank1-cut.pt.trace.json") << j.dump();
  std::ofstream(dir.path / "broken.pt.trace.json") << "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1";
  std::vector<std::string> problems;
  auto t = loadRanks({dir.path.string()}, {}, {}, &problems);
  ASSERT_EQ(t->ranks().size(), 2u);
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  EXPECT_NE(all.find("cut short"), std::string::npos) << all;
  EXPECT_NE(all.find("broken.pt.trace.json"), std::string::npos) << all;
  EXPECT_NE(all.find("cannot be read"), std::string::npos) << all;
}

TEST(RankTrace, NoReadableFileIsAnErrorListingEach) {
  TempDir dir;
  std::ofstream(dir.path / "a.pt.trace.json") << "not json";
  std::ofstream(dir.path / "b.pt.trace.json") << "";
  try {
    loadRanks({dir.path.string()});
    FAIL() << "expected an error";
  } catch (const TraceFileError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("none of the 2 files"), std::string::npos) << m;
    EXPECT_NE(m.find("a.pt.trace.json"), std::string::npos) << m;
    EXPECT_NE(m.find("b.pt.trace.json"), std::string::npos) << m;
  }
}

TEST(RankTrace, ASavedTraceOfRanksKeepsItsRanks) {
  TempDir dir;
  const auto& o = opened("ddp-w2-slowed");
  const std::string path = (dir.path / "ranks.pipescope").string();
  saveTraceFile(*o.trace, path, TraceFileFormat::Native);
  auto back = loadTraceFile(path);
  EXPECT_EQ(back->ranks(), o.trace->ranks());
  EXPECT_EQ(back->devices().size(), 2u);
  EXPECT_EQ(analyzeRanks(*back).straggler, 1);
}

TEST(RankTrace, AFolderWithOneTraceOrAWorkerChoiceIsNotRanks) {
  EXPECT_TRUE(opensAsRanks({ddp("ddp-w2-balanced")}));
  EXPECT_FALSE(opensAsRanks({ddp("ddp-w2-balanced")}, "vm_"));
  EXPECT_TRUE(opensAsRanks(filesOf("ddp-w2-balanced")));
  EXPECT_FALSE(opensAsRanks({filesOf("ddp-w2-balanced").front()}));
}

}  // namespace
}  // namespace pipescope
