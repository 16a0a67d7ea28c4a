#include "SweepTable.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "RunSummary.h"

namespace pipescope::cli {

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string padLeft(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string padRight(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

std::string shortBottleneck(Bottleneck b) {
  switch (b) {
    case Bottleneck::CopyBound: return "copy";
    case Bottleneck::ComputeBound: return "compute";
    case Bottleneck::HostBound: return "host";
    case Bottleneck::LatencyBound: return "latency";
    case Bottleneck::CommunicationBound: return "comm";
    case Bottleneck::Unknown: break;
  }
  return "-";
}

}  // namespace

std::string formatRate(double v) {
  char buf[64];
  if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.3g G", v / 1e9);
  else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.3g M", v / 1e6);
  else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.3g k", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string formatSweepTable(const SweepResult& r) {
  const bool predicted = !r.predicted.empty();
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"point", "samples/s", "min", "max", "GB/s in", "makespan", "efficiency", "buffers", "limited by"});
  if (predicted) rows.front().push_back("predicted");
  for (const auto& p : r.points) {
    std::vector<std::string> row{r.label(p)};
    if (!p.ok()) {
      row.push_back("failed: " + p.outcome.message);
      rows.push_back(row);
      continue;
    }
    row.push_back(formatRate(p.samplesPerSec.median));
    row.push_back(formatRate(p.samplesPerSec.min));
    row.push_back(formatRate(p.samplesPerSec.max));
    row.push_back(fixed(p.inputGBps, 2));
    row.push_back(formatDuration(p.makespanNs.median));
    row.push_back(fixed(p.efficiency * 100.0, 1) + "%");
    row.push_back(formatBytes(p.footprintBytes));
    row.push_back(shortBottleneck(p.bottleneck));
    if (predicted) {
      const SweepPointResult* q = r.predictedPoint(p.index);
      row.push_back(q && q->ok() ? formatRate(q->samplesPerSec.median) : "-");
    }
    rows.push_back(row);
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    if (row.size() == widths.size())
      for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  std::ostringstream out;
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const auto& row = rows[ri];
    std::string line = padRight(row[0], widths[0]);
    if (row.size() < widths.size()) {
      line += "  " + row[1];
    } else {
      for (std::size_t i = 1; i < row.size(); ++i)
        line += "  " + (i == 8 ? padRight(row[i], widths[i]) : padLeft(row[i], widths[i]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (ri == 0) {
      std::size_t total = 0;
      for (auto w : widths) total += w + 2;
      out << std::string(total - 2, '-') << "\n";
    }
  }
  return out.str();
}

std::string formatRecommendation(const SweepResult& r, const Recommendation& rec) {
  std::ostringstream out;
  out << "Recommendation: " << rec.sentence << "\n";
  if (!rec.scalingSentence.empty()) out << rec.scalingSentence << "\n";
  if (!rec.knees.empty()) {
    out << "Where more streams stop helping:\n";
    for (const auto& k : rec.knees) out << "  " << k.sentence << "\n";
  }
  for (const auto& n : r.notes) out << "Note: " << n << "\n";
  return out.str();
}

}  // namespace pipescope::cli
