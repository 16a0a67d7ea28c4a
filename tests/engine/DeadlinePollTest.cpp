// The time-limited wait the CUDA backend puts around NCCL's non-blocking calls
// (engine/cuda/DeadlinePoll.h): it returns as soon as the work is done or failed, and
// gives up at the deadline instead of hanging.
#include <gtest/gtest.h>

#include <chrono>

#include "cuda/DeadlinePoll.h"

namespace pipescope::cuda {
namespace {

using Clock = std::chrono::steady_clock;

TEST(DeadlinePollTest, ReturnsDoneOnTheCallThatReportsIt) {
  int calls = 0;
  const PollState s = pollUntil([&] { return ++calls == 3 ? PollState::Done : PollState::Pending; },
                                Clock::now() + std::chrono::seconds(30));
  EXPECT_EQ(s, PollState::Done);
  EXPECT_EQ(calls, 3);
}

TEST(DeadlinePollTest, AFailureEndsTheWaitAtOnce) {
  int calls = 0;
  const PollState s = pollUntil([&] { return ++calls == 2 ? PollState::Failed : PollState::Pending; },
                                Clock::now() + std::chrono::seconds(30));
  EXPECT_EQ(s, PollState::Failed);
  EXPECT_EQ(calls, 2);
}

TEST(DeadlinePollTest, WorkThatNeverFinishesIsPendingOnceTheDeadlinePassed) {
  int calls = 0;
  const auto deadline = Clock::now() + std::chrono::milliseconds(5);
  const PollState s = pollUntil([&] {
    ++calls;
    return PollState::Pending;
  }, deadline);
  EXPECT_EQ(s, PollState::Pending);
  EXPECT_GE(Clock::now(), deadline);
  EXPECT_GE(calls, 2);  // asked again after sleeping, not given up on the first answer
}

TEST(DeadlinePollTest, APassedDeadlineStillAsksOnce) {
  int calls = 0;
  const PollState s = pollUntil([&] {
    ++calls;
    return PollState::Done;
  }, Clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(s, PollState::Done);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace pipescope::cuda
