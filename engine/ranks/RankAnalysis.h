#pragma once
// What a job of several ranks spent its time on, rank by rank, and which rank made
// the others wait. The definitions follow Holistic Trace Analysis (HTA), so figures
// can be checked against it:
//   - computation: GPU kernels that are not collectives (their union in time);
//   - communication: collective (NCCL) kernels; exposed communication is the part of
//     it with no computation kernel running beside it on the same rank;
//   - memory: copies and memsets; idle: the rank's span with no GPU op running,
//     split by cause (the host had not launched the next op yet, or it was launched
//     and waited on something else: an event, another stream).
// The straggler, from the collectives matched on every rank (by order on each
// process group's NCCL stream):
//   - a rank arrives at a collective when its kernel starts (clocks aligned);
//   - the rank that arrived last made every other rank wait from its own arrival until
//     then, never longer than its kernel ran (a broadcast's root leaves once it sent);
//   - made-others-wait of a rank: that wait, summed over the other ranks and over the
//     collectives it arrived last at (rank-time, so with N ranks up to N-1 times the
//     wall time); waited-for-others: a rank's own share of the waits.
// This is what the others' GPUs measure: their NCCL kernels run beyond the call's own
// transfer time (the last rank's kernel) by about the time they waited.
// Ranks nobody slowed still reach a collective up to a millisecond apart, mostly while
// the waiting rank's GPU computes beside the NCCL kernel (DDP's all-reduces overlap the
// backward pass), which costs nothing. So the straggler is named only when it stands
// out: its made-others-wait at least twice any other rank's, and the part of it in
// which the waiting ranks had no compute kernel running (made-others-idle) at least
// kStragglerShare of a step, per waiting rank. The same rule names the straggler of
// each iteration, from that iteration's collectives alone (the step it is measured
// against is the job's, the median over the ranks of their mean step): in a job
// nobody slowed most iterations have none.
#include <cstdint>
#include <string>
#include <vector>

#include "trace/Trace.h"

namespace pipescope {

struct RankFigures {
  int rank = -1;
  int device = -1;                      ///< Trace::devices index of the rank's GPU
  std::string source;                   ///< its file
  std::int64_t spanNs = 0;              ///< first to last GPU op of the rank
  std::int64_t computeNs = 0;
  std::int64_t communicationNs = 0;
  std::int64_t exposedCommunicationNs = 0;
  double overlap = 0;                   ///< fraction of communication with computation beside it
  std::int64_t memoryNs = 0;
  std::int64_t idleNs = 0;
  std::int64_t idleWaitingForHostNs = 0;   ///< GPU idle until the host launched the next op
  std::int64_t idleWaitingOtherNs = 0;     ///< next op already launched: a dependency held it
  std::int64_t waitedForOthersNs = 0;      ///< in collectives, until the last rank arrived
  std::int64_t madeOthersWaitNs = 0;       ///< summed over the other ranks, see the file comment
  std::int64_t madeOthersIdleNs = 0;       ///< the part of it with no compute on the waiting rank
  std::int64_t collectivesLast = 0;        ///< collectives this rank started last
  std::int64_t iterations = 0;
  double iterationMeanNs = 0;           ///< mean step period: ProfilerStep start to the next one's
};

struct RankIteration {
  int index = 0;                          ///< batch number (ProfilerStep order)
  std::vector<std::int64_t> durationNs;   ///< per rank, its start to the next's (0: the rank has none)
  std::vector<std::int64_t> madeOthersWaitNs;  ///< per rank, in the iteration's collectives
  std::vector<std::int64_t> madeOthersIdleNs;  ///< per rank, the part with the waiting rank's GPU idle
  int straggler = -1;                          ///< the iteration's straggler by the rule above (-1: none stands out)
  std::int64_t stragglerWaitNs = 0;            ///< its made-others-wait in the iteration (0 when none)
};

struct RankWhatIf {
  std::string question;   ///< "if rank 1 were as fast as the median rank"
  double iterationNs = 0; ///< predicted mean iteration time
  double speedup = 1;     ///< measured / predicted
  std::string sentence;
};

struct RankAnalysis {
  std::vector<RankFigures> ranks;        ///< in rank order
  std::vector<RankIteration> iterations;
  std::size_t collectives = 0;           ///< matched across ranks
  std::string matchNote;                 ///< why fewer were matched, if so
  std::int64_t arrivalSpreadNs = 0;      ///< first to last rank's arrival at a collective (median)
  int straggler = -1;                    ///< the critical rank; -1 when balanced
  std::string stragglerSentence;         ///< one plain sentence either way
  std::vector<RankWhatIf> whatIfs;
};

/// A straggler must keep each other rank's GPU idle, waiting for it, at least this
/// fraction of a step (on the fixtures: ranks nobody slowed reach 19 %, a rank slowed
/// by 15 ms of a 24 ms step 69-75 %), and make the others wait at least
/// kStragglerLead times as long as the next rank does.
inline constexpr double kStragglerShare = 0.3;
inline constexpr double kStragglerLead = 2.0;
/// A collective whose kernels end further apart than this on the ranks is not counted
/// as one call (NCCL's ranks leave a collective within microseconds of each other).
inline constexpr std::int64_t kMaxCollectiveEndSkewNs = 1'000'000;

/// `trace` is a merged trace of ranks (Trace::ranks() with their devices); a trace of
/// one rank gives one row.
RankAnalysis analyzeRanks(const Trace& trace);

}  // namespace pipescope
