#pragma once
// Runs one task per rank on up to as many threads as the machine has cores: merging a
// job's ranks is work per rank (each rank's ops copied, its collectives listed) that
// need not wait for the other ranks.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace pipescope {

/// Calls task(i) for every i in [0, count), each exactly once, and returns when all are
/// done. The first exception a task throws is rethrown here (the other tasks still run).
template <typename Task>
void forEachRankInParallel(std::size_t count, Task&& task) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  const auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t helpers =
      count == 0 ? 0 : std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency())) - 1;
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (std::size_t i = 0; i < helpers; ++i) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace pipescope
