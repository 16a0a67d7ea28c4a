#include "metrics/BatchStageTable.h"

#include <algorithm>
#include <limits>

namespace pipescope {

std::int64_t BatchStageTable::Page::get(std::uint32_t slot, Stage s) const {
  const std::size_t i = std::size_t(slot) * kStages + s;
  return wide.empty() ? std::int64_t(narrow[i]) : wide[i];
}

void BatchStageTable::Page::set(std::uint32_t slot, Stage s, std::int64_t v) {
  const std::size_t i = std::size_t(slot) * kStages + s;
  if (wide.empty()) {
    if (v >= 0 && v <= std::int64_t(std::numeric_limits<std::uint32_t>::max())) {
      narrow[i] = std::uint32_t(v);
      return;
    }
    wide.assign(narrow.begin(), narrow.end());  // this page's figures no longer fit 32 bits
    std::vector<std::uint32_t>().swap(narrow);
  }
  wide[i] = v;
}

BatchStageTable::Page& BatchStageTable::pageOf(std::int32_t batch, std::uint32_t& slot) {
  const std::uint32_t id = std::uint32_t(batch);
  const std::uint32_t index = id >> kPageBits;
  slot = id & (kPageIds - 1);
  if (lastPage_ && index == lastPageIndex_) return *lastPage_;
  auto& page = pages_[index];
  if (!page) {
    page = std::make_unique<Page>();
    if (keepStages_) page->narrow.assign(std::size_t(kPageIds) * kStages, 0);
    page->present.assign(kPageIds / 64, 0);
    if (keepEnds_) page->ends.assign(kPageIds, std::numeric_limits<std::int64_t>::min());
  }
  lastPageIndex_ = index;
  lastPage_ = page.get();
  return *page;
}

void BatchStageTable::touch(std::int32_t batch, std::int64_t end) {
  std::uint32_t slot = 0;
  Page& p = pageOf(batch, slot);
  std::uint64_t& word = p.present[slot / 64];
  const std::uint64_t bit = std::uint64_t(1) << (slot % 64);
  if (!(word & bit)) word |= bit, ++count_;
  if (keepEnds_) p.ends[slot] = std::max(p.ends[slot], end);
}

void BatchStageTable::add(std::int32_t batch, Stage stage, std::int64_t ns) {
  std::uint32_t slot = 0;
  Page& p = pageOf(batch, slot);
  p.set(slot, stage, p.get(slot, stage) + ns);
}

void BatchStageTable::raise(std::int32_t batch, Stage stage, std::int64_t ns) {
  std::uint32_t slot = 0;
  Page& p = pageOf(batch, slot);
  if (ns > p.get(slot, stage)) p.set(slot, stage, ns);
}

template <typename F>
void BatchStageTable::forEachPresent(F&& f) const {
  for (const auto& [index, page] : pages_)
    for (std::uint32_t w = 0; w < page->present.size(); ++w)
      for (std::uint64_t bits = page->present[w]; bits != 0; bits &= bits - 1)
        f(*page, w * 64 + std::uint32_t(__builtin_ctzll(bits)));
}

std::int64_t BatchStageTable::countEndingIn(std::int64_t fromNs, std::int64_t toNs) const {
  std::int64_t n = 0;
  forEachPresent([&](const Page& p, std::uint32_t slot) {
    if (p.ends[slot] > fromNs && p.ends[slot] <= toNs) ++n;
  });
  return n;
}

std::vector<std::int64_t> BatchStageTable::ends() const {
  std::vector<std::int64_t> out;
  out.reserve(std::size_t(count_));
  forEachPresent([&](const Page& p, std::uint32_t slot) { out.push_back(p.ends[slot]); });
  return out;
}

StageTimes BatchStageTable::shortest() const {
  if (empty()) return {};
  std::int64_t m[kStages];
  std::fill(std::begin(m), std::end(m), std::numeric_limits<std::int64_t>::max());
  forEachPresent([&](const Page& p, std::uint32_t slot) {
    for (int s = 0; s < kStages; ++s) m[s] = std::min(m[s], p.get(slot, Stage(s)));
  });
  StageTimes t;
  t.h2dNs = double(m[H2D]);
  t.kernelNs = double(m[Kernel]);
  t.d2hNs = double(m[D2H]);
  t.preprocessNs = double(m[Preprocess]);
  t.postprocessNs = double(m[Postprocess]);
  return t;
}

}  // namespace pipescope
