// The paged array under the timeline index: the same contents as a std::vector after
// any mix of appends, inserts near the end, filtering and truncation, across pages.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "timeline/PagedArray.h"

using pipescope::ui::PagedArray;

namespace {

template <typename T, std::size_t N>
void expectSame(const PagedArray<T, N>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << i;
}

TEST(PagedArray, MatchesAVectorAcrossPages) {
  std::mt19937 rng(5);
  PagedArray<int, 64> paged;
  std::vector<int> plain;
  for (int round = 0; round < 40; ++round) {
    for (int k = 0; k < 150; ++k) {
      const int v = int(rng());
      if (rng() % 4 == 0 && !plain.empty()) {
        const std::size_t back = std::min<std::size_t>(plain.size(), rng() % 100);  // a few places back
        const std::size_t pos = plain.size() - back;
        paged.insert(pos, v);
        plain.insert(plain.begin() + std::ptrdiff_t(pos), v);
      } else {
        paged.push_back(v);
        plain.push_back(v);
      }
    }
    expectSame(paged, plain);
    if (round % 7 == 6) {
      paged.keepIf([](int& v) { return v % 3 != 0; });
      std::erase_if(plain, [](int v) { return v % 3 == 0; });
      expectSame(paged, plain);
    }
    if (round % 11 == 10) {
      paged.truncate(plain.size() / 3);
      plain.resize(plain.size() / 3);
      expectSame(paged, plain);
    }
  }
}

TEST(PagedArray, SmallArraysStaySmallAndLargeOnesWasteAtMostAPage) {
  PagedArray<std::uint64_t, 4096> a;
  a.push_back(1);
  EXPECT_LE(a.memoryBytes(), 8 * sizeof(std::uint64_t) + 64);
  for (std::uint64_t i = 0; i < 100'000; ++i) a.push_back(i);
  EXPECT_LE(a.memoryBytes(), (100'001 + 4096) * sizeof(std::uint64_t) + 64 * sizeof(void*));
  a.truncate(0);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.memoryBytes(), 0u);
  a.push_back(7);
  EXPECT_EQ(a[0], 7u);
}

}  // namespace
