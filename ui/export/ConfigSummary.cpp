#include "export/ConfigSummary.h"

#include <QObject>

namespace pipescope::ui {

namespace {
QString name(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }
QString bytes(std::uint64_t b) { return QString::fromStdString(formatBytes(b)); }
}  // namespace

QStringList configSummaryLines(const PipelineConfig& c) {
  using Q = QObject;
  QStringList lines;
  lines << Q::tr("Transfers: %1, %2 memory").arg(name(toString(c.mode)), name(toString(c.memory)));
  lines << Q::tr("Streams: %1, %2 issue, %3 sync").arg(c.streams).arg(name(toString(c.order)), name(toString(c.sync)));
  lines << Q::tr("Batches: %1 × %2 samples × %3 = %4")
               .arg(c.runsUntilStopped() ? Q::tr("until stopped") : QString::number(c.batchCount))
               .arg(c.batchSamples)
               .arg(bytes(c.sampleBytes), bytes(c.batchBytes()));
  QString gpu = c.normalizeKernel ? Q::tr("normalize + ") : QString();
  gpu += c.model == ModelPreset::Custom ? Q::tr("model %1 FLOP/B").arg(c.modelFlopsPerByte)
                                        : Q::tr("%1 model").arg(name(toString(c.model)));
  lines << Q::tr("GPU: %1").arg(gpu);
  lines << Q::tr("CPU: %1 worker(s), pre %2 ops/B, post %3 ops/B")
               .arg(c.cpuWorkers)
               .arg(c.preprocessOpsPerByte)
               .arg(c.postprocessOpsPerByte);
  lines << Q::tr("Data: %1, output %2× input, copy back %3 %, %4 chunk(s) per copy")
               .arg(name(toString(c.residency)))
               .arg(c.outputRatio)
               .arg(c.roiFraction * 100.0)
               .arg(c.transferChunks);
  return lines;
}

}  // namespace pipescope::ui
