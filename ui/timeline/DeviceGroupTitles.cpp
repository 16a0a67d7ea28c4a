#include "timeline/DeviceGroupTitles.h"

#include <algorithm>

namespace pipescope::ui {

double deviceBusyShare(int device, const std::vector<Lane>& lanes, const LaneIndex& index) {
  const std::int64_t span = index.lastNs() - index.firstNs();
  if (span <= 0) return 0.0;
  std::int64_t busy = 0;
  for (const Lane& l : lanes) {
    if (l.device != device || l.kind != LaneKind::ComputeEngine || l.id >= index.laneSlots()) continue;
    // Ops sorted by start: their union is one sweep.
    std::int64_t from = 0, to = 0;
    bool open = false;
    const LaneIndex::LaneOps& ops = index.lane(l.id);
    for (std::size_t pos = 0; pos < ops.size(); ++pos) {
      const std::uint64_t i = ops.op(pos);
      if (i < index.view().begin() || i >= index.view().end()) continue;
      const Op op = index.view().at(i);
      if (open && op.start <= to) {
        to = std::max(to, op.end);
        continue;
      }
      if (open) busy += to - from;
      from = op.start, to = op.end, open = true;
    }
    if (open) busy += to - from;
  }
  return std::clamp(double(busy) / double(span), 0.0, 1.0);
}

std::vector<QString> deviceGroupTitles(const Trace* trace, const std::vector<Lane>& lanes, const LaneIndex& index) {
  if (trace == nullptr) return {};
  const auto devices = trace->devices();
  if (devices.size() <= 1) return {};
  const auto ranks = trace->ranks();
  std::vector<QString> titles;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    QString who = QStringLiteral("GPU %1").arg(d);
    for (const RankInfo& r : ranks)
      if (r.device == int(d)) {
        who = QStringLiteral("Rank %1").arg(r.rank);
        if (r.worldSize > 0) who += QStringLiteral(" of %1").arg(r.worldSize);
      }
    const QString name = QString::fromStdString(devices[d].name.empty() ? devices[d].backend : devices[d].name);
    const double busy = deviceBusyShare(int(d), lanes, index);
    titles.push_back(who + QStringLiteral(" · ") + name +
                     QStringLiteral(" · busy %1%").arg(int(busy * 100.0 + 0.5)));
  }
  return titles;
}

}  // namespace pipescope::ui
