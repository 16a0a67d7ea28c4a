#include "cuda/WorkerPool.h"

#include <chrono>

namespace pipescope::cuda {

std::int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

WorkerPool::WorkerPool(int workers) : spans_(std::size_t(workers > 0 ? workers : 1)) {
  const int n = workers > 0 ? workers : 1;
  threads_.reserve(std::size_t(n));
  for (int i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

const std::vector<WorkerPool::Span>& WorkerPool::run(const Task& task) {
  std::unique_lock lock(mutex_);
  task_ = &task;
  pending_ = size();
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [this] { return pending_ == 0; });
  task_ = nullptr;
  return spans_;
}

void WorkerPool::loop(int index) {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
    if (quit_) return;
    seen = generation_;
    const Task* task = task_;
    const int workers = size();
    lock.unlock();
    const std::int64_t start = steadyNowNs();
    (*task)(index, workers);
    const std::int64_t end = steadyNowNs();
    lock.lock();
    spans_[std::size_t(index)] = {start, end};
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace pipescope::cuda
