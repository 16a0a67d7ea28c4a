#pragma once
// Waiting, with a time limit, for work that reports its state when asked: NCCL's
// non-blocking communicators (creation, group calls, finalisation) say "in progress"
// until they are done, and a communicator that never comes up must not hang the run.
// Header-only and CUDA-free so the CPU tests check it.
#include <algorithm>
#include <chrono>
#include <thread>

namespace pipescope::cuda {

enum class PollState { Done, Pending, Failed };

/// Calls `poll()` until it returns Done or Failed, or until `deadline` has passed
/// (then Pending). For the first half millisecond it only yields between calls (an
/// NCCL group call is done in tens of microseconds, and a sleep would add its own
/// wake-up to every one); after that it sleeps, from 20 µs doubling to 2 ms, so a slow
/// operation (creating communicators: seconds) does not spin a core.
template <typename Poll>
PollState pollUntil(Poll&& poll, std::chrono::steady_clock::time_point deadline) {
  const auto spinUntil = std::chrono::steady_clock::now() + std::chrono::microseconds(500);
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    const PollState s = poll();
    if (s != PollState::Pending) return s;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return PollState::Pending;
    if (now < spinUntil) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

}  // namespace pipescope::cuda
