#pragma once
// Fork-join CPU workers for pre/postprocessing: the submit thread hands every
// worker its share and waits; each worker reports when its share ran so the
// backend (the trace's only writer) can record one op per worker.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pipescope::cuda {

class WorkerPool {
 public:
  struct Span {
    std::int64_t start = 0;  ///< steady-clock ns
    std::int64_t end = 0;
  };
  /// worker index, count of workers -> the work for that worker's share
  using Task = std::function<void(int worker, int workers)>;

  explicit WorkerPool(int workers);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return int(threads_.size()); }
  /// Runs `task` on every worker and returns when all are done, with their spans.
  const std::vector<Span>& run(const Task& task);

 private:
  void loop(int index);

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const Task* task_ = nullptr;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool quit_ = false;
  std::vector<Span> spans_;
  std::vector<std::thread> threads_;
};

/// Steady-clock nanoseconds (the trace's host clock before subtracting run start).
std::int64_t steadyNowNs();

}  // namespace pipescope::cuda
