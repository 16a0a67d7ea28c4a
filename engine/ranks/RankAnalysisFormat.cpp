#include "ranks/RankAnalysisFormat.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

namespace {

std::string cell(const std::string& s, std::size_t width) {
  // Widths count characters, not bytes ("µs" is two bytes).
  std::size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return s + std::string(width > chars ? width - chars : 1, ' ');
}

std::string ns(std::int64_t v) { return formatNs(double(v)); }

}  // namespace

std::string formatRankAnalysis(const RankAnalysis& a, const std::vector<RankInfo>& ranks) {
  std::string out = "Ranks (" + std::to_string(a.ranks.size()) + ", " + std::to_string(a.collectives) +
                    " collectives matched on every rank)\n";
  const std::vector<std::pair<std::string, std::size_t>> head = {
      {"rank", 6},          {"compute", 10},         {"exposed comm", 14}, {"overlap", 9},
      {"memory", 10},       {"idle: host", 12},      {"idle: other", 13},  {"waited for others", 19},
      {"made others wait", 18}, {"iteration", 10}};
  out += "  ";
  for (const auto& [h, w] : head) out += cell(h, w);
  out += "\n";
  for (const RankFigures& r : a.ranks) {
    const std::vector<std::string> row = {std::to_string(r.rank),
                                          ns(r.computeNs),
                                          ns(r.exposedCommunicationNs),
                                          formatPercent(r.overlap),
                                          ns(r.memoryNs),
                                          ns(r.idleWaitingForHostNs),
                                          ns(r.idleWaitingOtherNs),
                                          ns(r.waitedForOthersNs),
                                          ns(r.madeOthersWaitNs),
                                          r.iterations > 0 ? formatNs(r.iterationMeanNs) : std::string("-")};
    out += "  ";
    for (std::size_t i = 0; i < row.size(); ++i) out += cell(row[i], head[i].second);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  out += "Straggler: " + a.stragglerSentence + "\n";
  for (const auto& w : a.whatIfs) out += "What if: " + w.sentence + "\n";
  if (!a.matchNote.empty()) out += "Collectives: " + a.matchNote + "\n";
  if (ranks.size() > 1) {
    out += "Clocks\n";
    for (const RankInfo& r : ranks)
      out += "  rank " + std::to_string(r.rank) + ": " + (r.alignment.empty() ? "-" : r.alignment) + "\n";
  }
  return out;
}

nlohmann::json rankAnalysisJson(const RankAnalysis& a, const std::vector<RankInfo>& ranks) {
  nlohmann::json j;
  j["collectives_matched"] = a.collectives;
  j["match_note"] = a.matchNote;
  j["straggler"] = a.straggler >= 0 ? nlohmann::json(a.straggler) : nlohmann::json(nullptr);
  j["straggler_sentence"] = a.stragglerSentence;
  j["arrival_spread_ns"] = a.arrivalSpreadNs;
  nlohmann::json rows = nlohmann::json::array();
  for (const RankFigures& r : a.ranks) {
    nlohmann::json row{{"rank", r.rank},
                       {"device", r.device},
                       {"file", std::filesystem::path(r.source).filename().string()},
                       {"span_ns", r.spanNs},
                       {"compute_ns", r.computeNs},
                       {"communication_ns", r.communicationNs},
                       {"exposed_communication_ns", r.exposedCommunicationNs},
                       {"overlap", r.overlap},
                       {"memory_ns", r.memoryNs},
                       {"idle_ns", r.idleNs},
                       {"idle_waiting_for_host_ns", r.idleWaitingForHostNs},
                       {"idle_waiting_other_ns", r.idleWaitingOtherNs},
                       {"waited_for_others_ns", r.waitedForOthersNs},
                       {"made_others_wait_ns", r.madeOthersWaitNs},
                       {"made_others_idle_ns", r.madeOthersIdleNs},
                       {"collectives_last", r.collectivesLast},
                       {"iterations", r.iterations},
                       {"iteration_mean_ns", r.iterationMeanNs}};
    for (const RankInfo& info : ranks)
      if (info.rank == r.rank) {
        row["clock_offset_ns"] = info.clockOffsetNs;
        row["alignment"] = info.alignment;
      }
    rows.push_back(std::move(row));
  }
  j["ranks"] = std::move(rows);
  nlohmann::json its = nlohmann::json::array();
  for (const RankIteration& it : a.iterations)
    its.push_back({{"index", it.index},
                   {"duration_ns", it.durationNs},
                   {"made_others_wait_ns", it.madeOthersWaitNs},
                   {"made_others_idle_ns", it.madeOthersIdleNs},
                   {"straggler", it.straggler >= 0 ? nlohmann::json(it.straggler) : nlohmann::json(nullptr)},
                   {"straggler_wait_ns", it.stragglerWaitNs}});
  j["iterations"] = std::move(its);
  nlohmann::json whatIfs = nlohmann::json::array();
  for (const RankWhatIf& w : a.whatIfs)
    whatIfs.push_back({{"question", w.question}, {"iteration_ns", w.iterationNs}, {"speedup", w.speedup},
                       {"sentence", w.sentence}});
  j["what_if"] = std::move(whatIfs);
  return j;
}

}  // namespace pipescope
