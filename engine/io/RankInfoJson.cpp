#include "io/RankInfoJson.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "io/TraceMetadataJson.h"

namespace pipescope {

nlohmann::json ranksToJson(const std::vector<RankInfo>& ranks) {
  nlohmann::json out = nlohmann::json::array();
  for (const RankInfo& r : ranks)
    out.push_back({{"rank", r.rank},
                   {"world_size", r.worldSize},
                   {"backend", r.backend},
                   {"groups", r.groups},
                   {"source", r.source},
                   {"clock_origin_ns", r.clockOriginNs},
                   {"clock_offset_ns", r.clockOffsetNs},
                   {"alignment", r.alignment},
                   {"device", r.device}});
  return out;
}

std::vector<RankInfo> ranksFromJson(const nlohmann::json& list) {
  if (!list.is_array()) throw std::invalid_argument("field 'ranks': expected an array");
  constexpr std::int64_t kBig = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<RankInfo> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "ranks[" + std::to_string(i) + "]";
    const auto& j = list[i];
    if (!j.is_object()) throw std::invalid_argument("field '" + where + "': expected an object");
    RankInfo r;
    r.rank = int(requireInt(j, "rank", where, -1, 1 << 20));
    r.worldSize = int(requireInt(j, "world_size", where, 0, 1 << 20));
    r.backend = requireString(j, "backend", where);
    r.groups = requireString(j, "groups", where);
    r.source = requireString(j, "source", where);
    r.clockOriginNs = requireInt(j, "clock_origin_ns", where, -kBig, kBig);
    r.clockOffsetNs = requireInt(j, "clock_offset_ns", where, -kBig, kBig);
    r.alignment = requireString(j, "alignment", where);
    r.device = int(requireInt(j, "device", where, -1, 1 << 16));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace pipescope
