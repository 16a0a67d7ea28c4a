#include "sweep/SweepChartData.h"

#include <QStringList>
#include <algorithm>
#include <set>

namespace pipescope::ui {

namespace {

bool inBlock(const SweepPointResult& p, const SweepBlock& b) {
  return p.config.memory == b.memory && p.config.model == b.model;
}

std::vector<int> sortedUnique(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::vector<SweepBlock> sweepBlocks(const SweepResult& r) {
  const auto memories = r.spec.memories.empty() ? std::vector<HostMemory>{r.spec.base.memory} : r.spec.memories;
  const auto models = r.spec.models.empty() ? std::vector<ModelPreset>{r.spec.base.model} : r.spec.models;
  std::vector<SweepBlock> blocks;
  for (HostMemory m : memories)
    for (ModelPreset k : models) {
      SweepBlock b{m, k, {}};
      QStringList parts;
      if (r.gridVariesMemory()) parts << QString::fromUtf8(toString(m).data(), qsizetype(toString(m).size()));
      if (r.gridVariesModel()) parts << QString::fromUtf8(toString(k).data(), qsizetype(toString(k).size()));
      b.label = parts.join(", ");
      blocks.push_back(b);
    }
  return blocks;
}

std::vector<SweepSeries> sweepSeries(const SweepResult& r, const std::vector<SweepPointResult>& points,
                                     const SweepBlock& block) {
  std::vector<SweepSeries> out;
  for (int streams : sortedUnique(r.spec.streams)) {
    SweepSeries s;
    s.streams = streams;
    for (const auto& p : points) {
      if (!p.ok() || !inBlock(p, block) || p.config.streams != streams) continue;
      s.points.push_back({double(p.config.batchBytes()), p.samplesPerSec.median, p.samplesPerSec.min,
                          p.samplesPerSec.max, p.index});
    }
    std::sort(s.points.begin(), s.points.end(),
              [](const SweepSeriesPoint& a, const SweepSeriesPoint& b) { return a.batchBytes < b.batchBytes; });
    out.push_back(std::move(s));
  }
  return out;
}

HeatmapGrid heatmapGrid(const SweepResult& r, const SweepBlock& block, HeatmapMetric metric) {
  HeatmapGrid g;
  g.metric = metric;
  g.streams = sortedUnique(r.spec.streams);
  for (int samples : sortedUnique(r.spec.batchSamples)) g.batchBytes.push_back(std::uint64_t(samples) * r.spec.base.sampleBytes);
  g.values.assign(g.streams.size() * g.batchBytes.size(), std::nullopt);
  g.indices.assign(g.values.size(), std::nullopt);
  for (const auto& p : r.points) {
    if (!p.ok() || !inBlock(p, block)) continue;
    const auto row = std::find(g.streams.begin(), g.streams.end(), p.config.streams) - g.streams.begin();
    const auto col = std::find(g.batchBytes.begin(), g.batchBytes.end(), p.config.batchBytes()) - g.batchBytes.begin();
    if (row >= g.rows() || col >= g.columns()) continue;
    const std::size_t at = std::size_t(row * g.columns() + col);
    g.values[at] = metric == HeatmapMetric::Throughput ? p.samplesPerSec.median : p.efficiency;
    g.indices[at] = p.index;
  }
  return g;
}

QString batchSizeLabel(double bytes) {
  return QString::fromStdString(formatBytes(std::uint64_t(bytes + 0.5)));
}

QString rateLabel(double v) {
  if (v >= 1e9) return QString::number(v / 1e9, 'g', 3) + " G";
  if (v >= 1e6) return QString::number(v / 1e6, 'g', 3) + " M";
  if (v >= 1e3) return QString::number(v / 1e3, 'g', 3) + " k";
  return QString::number(v, 'g', 3);
}

}  // namespace pipescope::ui
