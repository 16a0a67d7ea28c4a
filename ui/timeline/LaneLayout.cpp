#include "timeline/LaneLayout.h"

#include <algorithm>

#include "trace/Op.h"

namespace pipescope::ui {

static_assert(LaneLayoutOptions{}.minRowHeight == LaneLayout::kRowHeight &&
              LaneLayoutOptions{}.maxRowHeight == LaneLayout::kMaxRowHeight &&
              LaneLayoutOptions{}.sectionHeight == LaneLayout::kSectionHeight);

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

// The one row standing for the folded call-stack lanes; clicking it unfolds them.
LaneRow callStackGroupRow(std::size_t lanes, bool expanded) {
  LaneRow group;
  group.lane = kNoLane;
  group.kind = LaneKind::HostOther;
  group.group = true;
  group.name = (expanded ? QStringLiteral("▾ ") : QStringLiteral("▸ ")) +
               QStringLiteral("call stacks (%1 lanes)").arg(lanes);
  return group;
}

}  // namespace

const LaneRow* LaneLayout::rowAt(int y) const {
  for (const LaneRow& r : rows)
    if (y >= r.top && y < r.top + r.height) return &r;
  return nullptr;
}

const LaneRow* LaneLayout::sectionAt(int y) const {
  for (const LaneRow& r : rows)
    if (!r.section.isEmpty() && y >= r.top - kSectionHeight && y < r.top) return &r;
  return nullptr;
}

const LaneRow* LaneLayout::rowOf(std::uint16_t id) const {
  for (const LaneRow& r : rows)
    if (r.lane == id && !r.group) return &r;
  return nullptr;
}

namespace {

// Several GPUs or ranks: shared host lanes, then a group per device (its own host
// threads, streams, engines and links), then the communicators.
LaneLayout layoutByDevice(const std::vector<Lane>& lanes, LaneGrouping grouping, int availableHeight,
                          const LaneLayoutOptions& options) {
  const std::size_t devices = options.deviceTitles.size();
  auto foldable = [&](const Lane& l) {
    return isHostLane(l.kind) && l.id < options.callStackOnly.size() && options.callStackOnly[l.id];
  };
  auto collapsed = [&](std::size_t d) { return d < options.collapsedDevices.size() && options.collapsedDevices[d]; };
  const bool showStreams = grouping != LaneGrouping::ByEngine, showEngines = grouping != LaneGrouping::ByStream;
  std::vector<const Lane*> host, folded, communicators;
  std::vector<std::vector<const Lane*>> perDevice(devices);
  for (const Lane& l : lanes) {
    if (foldable(l) && (l.device < 0 || std::size_t(l.device) >= devices)) folded.push_back(&l);
    else if (l.device < 0 || std::size_t(l.device) >= devices)
      (l.kind == LaneKind::Collective ? communicators : host).push_back(&l);
    else if (foldable(l)) continue;  // a rank's call-stack lanes stay folded
    else if (isEngineLane(l.kind) ? showEngines : (l.kind == LaneKind::Stream ? showStreams : true))
      perDevice[std::size_t(l.device)].push_back(&l);
  }
  // Within a group: host threads, streams, engines in pipeline order, links (or the
  // reverse for opened traces, GPU first).
  auto rank = [&](const Lane* l) {
    int r = isHostLane(l->kind) ? 0 : l->kind == LaneKind::Stream ? 1 : isEngineLane(l->kind) ? 2 : 3;
    if (options.order == LaneOrder::GpuFirst) r = r == 0 ? 4 : r == 2 ? 0 : r;
    return r;
  };
  auto engineOrder = [](LaneKind k) {
    return k == LaneKind::CopyEngineH2D ? 0 : k == LaneKind::CopyEngine ? 1 : k == LaneKind::ComputeEngine ? 2 : 3;
  };
  for (auto& group : perDevice)
    std::stable_sort(group.begin(), group.end(), [&](const Lane* a, const Lane* b) {
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      if (isEngineLane(a->kind) && engineOrder(a->kind) != engineOrder(b->kind))
        return engineOrder(a->kind) < engineOrder(b->kind);
      if (a->index != b->index) return a->index < b->index;
      return a->id < b->id;
    });

  int rowCount = int(host.size() + communicators.size()) + (folded.empty() ? 0 : 1) +
                 (options.callStacksExpanded ? int(folded.size()) : 0);
  int sections = int(!host.empty() || !folded.empty()) + int(!communicators.empty());
  for (std::size_t d = 0; d < devices; ++d) {
    if (perDevice[d].empty()) continue;
    rowCount += collapsed(d) ? 1 : int(perDevice[d].size());
    ++sections;
  }
  int rowHeight = LaneLayout::kRowHeight;
  if (availableHeight > 0 && rowCount > 0)
    rowHeight = std::clamp((availableHeight - sections * LaneLayout::kSectionHeight) / rowCount,
                           LaneLayout::kRowHeight, LaneLayout::kMaxRowHeight);

  LaneLayout layout;
  layout.foldableLanes = int(folded.size());
  int y = 0;
  QString pendingSection;
  int pendingDevice = -1;
  auto addRow = [&](LaneRow row) {
    row.top = y;
    row.height = rowHeight;
    if (!pendingSection.isEmpty()) {
      row.section = pendingSection;
      row.device = pendingDevice;
    }
    pendingSection.clear();
    pendingDevice = -1;
    y += row.height;
    layout.rows.push_back(std::move(row));
  };
  auto startSection = [&](const QString& title, int device) {
    y += LaneLayout::kSectionHeight;
    pendingSection = title;
    pendingDevice = device;
  };
  auto addLane = [&](const Lane* l) {
    LaneRow row;
    row.lane = l->id;
    row.kind = l->kind;
    row.name = QString::fromStdString(l->name);
    addRow(std::move(row));
  };
  auto addHost = [&] {
    if (host.empty() && folded.empty()) return;
    startSection(QStringLiteral("Host threads"), -1);
    for (const Lane* l : host) addLane(l);
    if (folded.empty()) return;
    addRow(callStackGroupRow(folded.size(), options.callStacksExpanded));
    if (options.callStacksExpanded)
      for (const Lane* l : folded) addLane(l);
  };
  auto addDevices = [&] {
    for (std::size_t d = 0; d < devices; ++d) {
      if (perDevice[d].empty()) continue;
      startSection((collapsed(d) ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + options.deviceTitles[d], int(d));
      if (collapsed(d)) {
        LaneRow foldedGroup;
        foldedGroup.lane = kNoLane;
        foldedGroup.kind = LaneKind::ComputeEngine;
        foldedGroup.group = true;
        foldedGroup.device = int(d);
        foldedGroup.name = QStringLiteral("▸ %1 lanes folded").arg(perDevice[d].size());
        addRow(std::move(foldedGroup));
        layout.rows.back().device = int(d);
        continue;
      }
      for (const Lane* l : perDevice[d]) addLane(l);
    }
  };
  auto addCommunicators = [&] {
    if (communicators.empty()) return;
    startSection(QStringLiteral("Communication"), -1);
    for (const Lane* l : communicators) addLane(l);
  };
  if (options.order == LaneOrder::GpuFirst) {
    addDevices();
    addCommunicators();
    addHost();
  } else {
    addHost();
    addDevices();
    addCommunicators();
  }
  layout.contentHeight = y;
  return layout;
}

}  // namespace

LaneLayout layoutLanes(const std::vector<Lane>& lanes, LaneGrouping grouping, int availableHeight,
                       const LaneLayoutOptions& options) {
  if (options.deviceTitles.size() > 1) return layoutByDevice(lanes, grouping, availableHeight, options);
  std::vector<const Lane*> host, folded, streams, engines;
  auto foldable = [&](const Lane& l) {
    return isHostLane(l.kind) && l.id < options.callStackOnly.size() && options.callStackOnly[l.id];
  };
  for (const Lane& l : lanes) {
    if (foldable(l)) folded.push_back(&l);
    else if (isHostLane(l.kind)) host.push_back(&l);
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
  std::stable_sort(folded.begin(), folded.end(), byKindThenIndex(hostOrder));
  std::stable_sort(streams.begin(), streams.end(), byKindThenIndex([](LaneKind) { return 0; }));
  std::stable_sort(engines.begin(), engines.end(), byKindThenIndex(engineOrder));

  const bool showStreams = grouping != LaneGrouping::ByEngine, showEngines = grouping != LaneGrouping::ByStream;
  const int groupRows = folded.empty() ? 0 : 1 + (options.callStacksExpanded ? int(folded.size()) : 0);
  const int rowCount =
      int(host.size()) + groupRows + int(showStreams ? streams.size() : 0) + int(showEngines ? engines.size() : 0);
  const int sectionCount = int(!host.empty() || !folded.empty()) + int(showStreams && !streams.empty()) +
                           int(showEngines && !engines.empty());
  const int sectionHeight = options.sectionHeight;
  int rowHeight = options.minRowHeight;
  if (availableHeight > 0 && rowCount > 0)
    rowHeight = std::clamp((availableHeight - sectionCount * sectionHeight) / rowCount, options.minRowHeight,
                           std::max(options.minRowHeight, options.maxRowHeight));

  LaneLayout layout;
  layout.sectionHeight = sectionHeight;
  layout.foldableLanes = int(folded.size());
  int y = 0;
  bool firstOfSection = false;
  QString sectionTitle;
  auto startSection = [&](const QString& title) {
    y += sectionHeight;
    firstOfSection = true;
    sectionTitle = title;
  };
  auto addRow = [&](LaneRow row) {
    row.top = y;
    row.height = rowHeight;
    if (firstOfSection) row.section = sectionTitle;
    firstOfSection = false;
    y += row.height;
    layout.rows.push_back(std::move(row));
  };
  auto addLane = [&](const Lane* l) {
    LaneRow row;
    row.lane = l->id;
    row.kind = l->kind;
    row.name = QString::fromStdString(l->name);
    addRow(std::move(row));
  };
  auto addSection = [&](const std::vector<const Lane*>& section, const QString& title) {
    if (section.empty()) return;
    startSection(title);
    for (const Lane* l : section) addLane(l);
  };
  auto addHost = [&] {
    if (host.empty() && folded.empty()) return;
    startSection(QStringLiteral("Host threads"));
    for (const Lane* l : host) addLane(l);
    if (folded.empty()) return;
    addRow(callStackGroupRow(folded.size(), options.callStacksExpanded));
    if (options.callStacksExpanded)
      for (const Lane* l : folded) addLane(l);
  };
  if (options.order == LaneOrder::GpuFirst) {
    if (showEngines) addSection(engines, QStringLiteral("GPU engines"));
    if (showStreams) addSection(streams, QStringLiteral("Streams"));
    addHost();
  } else {
    addHost();
    if (showStreams) addSection(streams, QStringLiteral("Streams"));
    if (showEngines) addSection(engines, QStringLiteral("GPU engines"));
  }
  layout.contentHeight = y;
  return layout;
}

}  // namespace pipescope::ui
