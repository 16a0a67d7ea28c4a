#pragma once
// A FIFO over one contiguous power-of-two array that grows when full and never
// shrinks. The simulator keeps a sliding window of per-op state (pushed at the
// back, retired from the front, millions of times per run); std::deque allocated
// and freed a node every few dozen ops and indexed through two levels, which was a
// measurable share of the simulation time. Here the steady state allocates nothing
// and indexing is one mask.
#include <cstddef>
#include <utility>
#include <vector>

namespace pipescope {

template <typename T>
class RingBuffer {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  /// i-th element from the front; i < size().
  T& operator[](std::size_t i) { return slots_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) & mask_]; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& value) { append() = value; }
  /// Adds a slot at the back and returns it to be filled in place (it holds whatever
  /// a popped element left there): saves copying a large T through a temporary.
  T& append() {
    if (size_ == slots_.size()) grow();
    return slots_[(head_ + size_++) & mask_];
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void clear() { head_ = size_ = 0; }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_.swap(bigger);
    head_ = 0;
    mask_ = slots_.size() - 1;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace pipescope
