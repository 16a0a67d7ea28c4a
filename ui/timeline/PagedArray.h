#pragma once
// A growable array kept in fixed pages: growing never copies what is there (a vector
// of 100 M-op lane entries would briefly hold its old and new buffers, 1.5 GB more)
// and never leaves more than one page unused. The first page grows by doubling up to
// a full page, so an array of a few items (a lane with one op) stays small.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace pipescope::ui {

template <typename T, std::size_t PageItems = 4096>
class PagedArray {
  static_assert((PageItems & (PageItems - 1)) == 0, "page size must be a power of two");

 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return pages_[i / PageItems][i % PageItems]; }
  const T& operator[](std::size_t i) const { return pages_[i / PageItems][i % PageItems]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == capacity()) grow();
    (*this)[size_++] = v;
  }
  /// Inserts v before position pos, moving the items after it one place on (cheap near the end).
  void insert(std::size_t pos, const T& v) {
    push_back(v);
    for (std::size_t i = size_ - 1; i > pos; --i) (*this)[i] = (*this)[i - 1];
    (*this)[pos] = v;
  }
  /// Keeps the first n items and frees the pages past them.
  void truncate(std::size_t n) {
    if (n >= size_) return;
    size_ = n;
    pages_.resize(std::max<std::size_t>(1, (n + PageItems - 1) / PageItems));
    if (n == 0) {
      pages_.clear();
      pages_.shrink_to_fit();
      firstPageItems_ = 0;
    }
  }
  /// Removes the items for which keep(item) is false, keeping the others' order.
  template <typename Keep>
  void keepIf(Keep&& keep) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < size_; ++i)
      if (keep((*this)[i])) (*this)[out++] = (*this)[i];
    truncate(out);
  }
  std::size_t memoryBytes() const {
    const std::size_t items = pages_.size() <= 1 ? firstPageItems_ : pages_.size() * PageItems;
    return pages_.capacity() * sizeof(pages_[0]) + items * sizeof(T);
  }

 private:
  std::size_t capacity() const { return pages_.size() <= 1 ? firstPageItems_ : pages_.size() * PageItems; }
  void grow() {
    if (firstPageItems_ < PageItems) {
      const std::size_t items = std::max<std::size_t>(8, 2 * firstPageItems_);
      auto page = std::make_unique_for_overwrite<T[]>(items);
      for (std::size_t i = 0; i < size_; ++i) page[i] = pages_[0][i];
      if (pages_.empty()) pages_.push_back(std::move(page));
      else pages_[0] = std::move(page);
      firstPageItems_ = items;
      return;
    }
    pages_.push_back(std::make_unique_for_overwrite<T[]>(PageItems));
  }

  std::vector<std::unique_ptr<T[]>> pages_;
  std::size_t firstPageItems_ = 0;  // capacity of pages_[0] (PageItems once a second page exists)
  std::size_t size_ = 0;
};

}  // namespace pipescope::ui
