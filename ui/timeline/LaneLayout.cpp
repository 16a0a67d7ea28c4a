#include "timeline/LaneLayout.h"

#include <algorithm>

namespace pipescope::ui {

QString toString(LaneGrouping g) {
  switch (g) {
    case LaneGrouping::ByStream: return QStringLiteral("by stream");
    case LaneGrouping::ByEngine: return QStringLiteral("by engine");
    case LaneGrouping::Both: return QStringLiteral("streams and engines");
  }
  return {};
}

namespace {

// Engines in pipeline order: data goes in, is computed on, comes back.
int engineOrder(LaneKind k) {
  switch (k) {
    case LaneKind::CopyEngineH2D: return 0;
    case LaneKind::CopyEngine: return 1;
    case LaneKind::ComputeEngine: return 2;
    case LaneKind::CopyEngineD2H: return 3;
    default: return 4;
  }
}

int hostOrder(LaneKind k) {
  switch (k) {
    case LaneKind::HostSubmit: return 0;
    case LaneKind::HostWorker: return 1;
    default: return 2;
  }
}

}  // namespace

const LaneRow* LaneLayout::rowAt(int y) const {
  for (const LaneRow& r : rows)
    if (y >= r.top && y < r.top + r.height) return &r;
  return nullptr;
}

const LaneRow* LaneLayout::rowOf(std::uint16_t id) const {
  for (const LaneRow& r : rows)
    if (r.lane == id) return &r;
  return nullptr;
}

LaneLayout layoutLanes(const std::vector<Lane>& lanes, LaneGrouping grouping, int availableHeight) {
  std::vector<const Lane*> host, streams, engines;
  for (const Lane& l : lanes) {
    if (isHostLane(l.kind)) host.push_back(&l);
    else if (isEngineLane(l.kind)) engines.push_back(&l);
    else streams.push_back(&l);
  }
  auto byKindThenIndex = [](auto order) {
    return [order](const Lane* a, const Lane* b) {
      if (order(a->kind) != order(b->kind)) return order(a->kind) < order(b->kind);
      if (a->index != b->index) return a->index < b->index;
      return a->id < b->id;
    };
  };
  std::stable_sort(host.begin(), host.end(), byKindThenIndex(hostOrder));
  std::stable_sort(streams.begin(), streams.end(), byKindThenIndex([](LaneKind) { return 0; }));
  std::stable_sort(engines.begin(), engines.end(), byKindThenIndex(engineOrder));

  const bool showStreams = grouping != LaneGrouping::ByEngine, showEngines = grouping != LaneGrouping::ByStream;
  const int rowCount = int(host.size() + (showStreams ? streams.size() : 0) + (showEngines ? engines.size() : 0));
  const int sectionCount = int(!host.empty()) + int(showStreams && !streams.empty()) + int(showEngines && !engines.empty());
  int rowHeight = LaneLayout::kRowHeight;
  if (availableHeight > 0 && rowCount > 0)
    rowHeight = std::clamp((availableHeight - sectionCount * LaneLayout::kSectionHeight) / rowCount,
                           LaneLayout::kRowHeight, LaneLayout::kMaxRowHeight);

  LaneLayout layout;
  int y = 0;
  auto addSection = [&](const std::vector<const Lane*>& section, const QString& title) {
    if (section.empty()) return;
    y += LaneLayout::kSectionHeight;
    bool first = true;
    for (const Lane* l : section) {
      LaneRow row;
      row.lane = l->id;
      row.kind = l->kind;
      row.name = QString::fromStdString(l->name);
      row.top = y;
      row.height = rowHeight;
      if (first) row.section = title;
      first = false;
      layout.rows.push_back(row);
      y += row.height;
    }
  };
  addSection(host, QStringLiteral("Host threads"));
  if (showStreams) addSection(streams, QStringLiteral("Streams"));
  if (showEngines) addSection(engines, QStringLiteral("GPU engines"));
  layout.contentHeight = y;
  return layout;
}

}  // namespace pipescope::ui
