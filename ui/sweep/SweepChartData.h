#pragma once
// A sweep result arranged for drawing: the grid's memory/model blocks, one line per
// stream count (throughput against batch size, with its spread), and the
// stream x batch-size grid of a heatmap. Plain data, so the arrangement is tested
// without painting anything.
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "sweep/SweepResult.h"

namespace pipescope::ui {

/// One memory/model combination of the grid (a single block when neither varies).
struct SweepBlock {
  HostMemory memory = HostMemory::Pinned;
  ModelPreset model = ModelPreset::Custom;
  QString label;  ///< "pinned, light"; empty when the grid varies neither
  bool operator==(const SweepBlock& o) const { return memory == o.memory && model == o.model; }
};
std::vector<SweepBlock> sweepBlocks(const SweepResult& result);

struct SweepSeriesPoint {
  double batchBytes = 0;
  double median = 0, min = 0, max = 0;  ///< samples/s
  std::size_t index = 0;                ///< grid index of the point
};
/// Throughput against batch size for one stream count, ascending batch size.
struct SweepSeries {
  int streams = 0;
  std::vector<SweepSeriesPoint> points;
};
/// Finished points of `points` in `block`, one series per stream count of the grid
/// (ascending; a stream count with no finished point has an empty series).
std::vector<SweepSeries> sweepSeries(const SweepResult& result, const std::vector<SweepPointResult>& points,
                                     const SweepBlock& block);

enum class HeatmapMetric { Throughput, Efficiency };

/// Rows: stream counts (ascending), columns: batch sizes (ascending). A cell is empty
/// until its point finished (or when it failed).
struct HeatmapGrid {
  std::vector<std::uint64_t> batchBytes;
  std::vector<int> streams;
  std::vector<std::optional<double>> values;       ///< row-major; samples/s or efficiency (0..1+)
  std::vector<std::optional<std::size_t>> indices; ///< grid index of each finished cell
  HeatmapMetric metric = HeatmapMetric::Throughput;
  int rows() const { return int(streams.size()); }
  int columns() const { return int(batchBytes.size()); }
  std::optional<double> value(int row, int column) const { return values[std::size_t(row * columns() + column)]; }
  std::optional<std::size_t> index(int row, int column) const { return indices[std::size_t(row * columns() + column)]; }
};
HeatmapGrid heatmapGrid(const SweepResult& result, const SweepBlock& block, HeatmapMetric metric);

/// "1 MiB", "512 KiB": a batch size for axis labels.
QString batchSizeLabel(double bytes);
/// "91.8 k", "1.2 M": a rate with three significant digits.
QString rateLabel(double perSecond);

}  // namespace pipescope::ui
