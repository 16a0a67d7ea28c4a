#pragma once
// Puts a trace's ops in start order while reading the store once, front to back.
// The store keeps ops roughly in time order, not exactly (ops are appended as they
// finish, imports and merged ranks lane by lane): the caller reads the ops in blocks
// of kStartOrderBlockOps and knows, from a first pass, each block's earliest start.
// After block b, no later block starts an op before the earliest start of blocks
// b+1..: what starts before that is handed out; the rest is held in a heap. Only the
// store's disorder is held, never the whole trace (a store in time order holds about
// one block; one in reverse order holds it all).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

namespace pipescope {

inline constexpr std::uint64_t kStartOrderBlockOps = 4096;

/// Item: any type with an `s` (its start) member.
template <typename Item>
class StartOrder {
 public:
  /// blockFirstStart[b]: the earliest start among the items of block b (INT64_MAX: none).
  explicit StartOrder(const std::vector<std::int64_t>& blockFirstStart)
      : laterStart_(blockFirstStart.size() + 1, std::numeric_limits<std::int64_t>::max()) {
    for (std::size_t b = blockFirstStart.size(); b-- > 0;)
      laterStart_[b] = std::min(laterStart_[b + 1], blockFirstStart[b]);
  }

  void push(const Item& item) { held_.push(item); }

  /// After the items of block b are pushed: hands f every item that can come now, in order.
  template <typename F>
  void endBlock(std::size_t b, F&& f) {
    const std::int64_t next = laterStart_[std::min(b + 1, laterStart_.size() - 1)];
    while (!held_.empty() && held_.top().s < next) {
      f(held_.top());
      held_.pop();
    }
  }

  /// After the last block: hands f what is left, in order.
  template <typename F>
  void finish(F&& f) {
    while (!held_.empty()) {
      f(held_.top());
      held_.pop();
    }
  }

 private:
  struct StartsLater {
    bool operator()(const Item& a, const Item& b) const { return a.s > b.s; }
  };
  std::vector<std::int64_t> laterStart_;  // [b]: earliest start of blocks b.. (one past the end: none)
  std::priority_queue<Item, std::vector<Item>, StartsLater> held_;
};

}  // namespace pipescope
