#include "timeline/AnnotationLanes.h"

#include <algorithm>

namespace pipescope::ui {

std::vector<bool> callStackOnlyLanes(const std::vector<Lane>& lanes, const LaneIndex& index) {
  std::vector<bool> out;
  constexpr std::uint32_t annotationOnly = 1u << int(OpKind::Annotation);
  for (const Lane& l : lanes) {
    if (l.kind != LaneKind::HostOther) continue;
    const std::uint32_t mask = index.lane(l.id).kindMask;
    if ((mask & ~annotationOnly) != 0) continue;
    if (out.size() <= l.id) out.resize(std::size_t(l.id) + 1, false);
    out[l.id] = true;
  }
  return out;
}

}  // namespace pipescope::ui
