#include "metrics/MetricsRows.h"

#include <QObject>
#include <cmath>

namespace pipescope::ui {

namespace {
QString threeDigits(double v) {
  const double a = std::abs(v);
  return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
}
}  // namespace

QString formatDurationNs(double ns) {
  const double a = std::abs(ns);
  if (a < 1e3) return threeDigits(ns) + " ns";
  if (a < 1e6) return threeDigits(ns / 1e3) + " µs";
  if (a < 1e9) return threeDigits(ns / 1e6) + " ms";
  return threeDigits(ns / 1e9) + " s";
}

QString formatGBps(double gbps) { return threeDigits(gbps) + " GB/s"; }

QString formatRate(double v, const QString& unit) {
  const double a = std::abs(v);
  if (a >= 1e9) return threeDigits(v / 1e9) + " G " + unit + "/s";
  if (a >= 1e6) return threeDigits(v / 1e6) + " M " + unit + "/s";
  if (a >= 1e3) return threeDigits(v / 1e3) + " k " + unit + "/s";
  return threeDigits(v) + " " + unit + "/s";
}

QString formatPercent(double fraction) { return QString::number(fraction * 100.0, 'f', 1) + " %"; }

namespace {
QString notAvailable() { return QObject::tr("n/a"); }

QString noBatchesReason(const Metrics& m) {
  if (m.ops == 0) return QObject::tr("n/a: no operations yet.");
  return QObject::tr("n/a: no batch completed in this trace (imported profiles carry no batch indices), so per-batch "
                     "figures cannot be known.");
}
}  // namespace

std::vector<MetricsRow> metricsRows(const Metrics& m) {
  using Q = QObject;
  // Figures that need batches (or the batch size) cannot be known for a trace
  // without them: "n/a" with the reason, never a 0 that reads as a measurement.
  const bool batches = m.batches > 0;
  const QString noBatches = noBatchesReason(m);
  std::vector<MetricsRow> rows;
  rows.push_back({Q::tr("Makespan"), formatDurationNs(m.makespanNs), Q::tr("First op start to last op end.")});
  if (batches) {
    rows.push_back({Q::tr("Batches"), QString::number(m.batches), Q::tr("Batches completed.")});
    rows.push_back({Q::tr("Throughput"), formatRate(m.batchesPerSec, Q::tr("batches")),
                    Q::tr("Completed batches per second of makespan.")});
  } else {
    rows.push_back({Q::tr("Batches"), notAvailable(), noBatches});
    rows.push_back({Q::tr("Throughput"), notAvailable(), noBatches});
  }
  rows.push_back({Q::tr("Samples"), batches && m.samples > 0 ? formatRate(m.samplesPerSec, Q::tr("samples")) : notAvailable(),
                  batches && m.samples > 0 ? Q::tr("Samples per second (batches × batch size).")
                  : batches ? Q::tr("n/a: the trace carries no configuration, so its batch size is not known.")
                            : noBatches});
  rows.push_back({Q::tr("H2D bandwidth"),
                  Q::tr("%1 busy · %2 wall").arg(formatGBps(m.h2dGBpsBusy), formatGBps(m.h2dGBpsWall)),
                  Q::tr("busy: bytes / time the copies ran (what the link achieved);\nwall: bytes / makespan (what "
                        "the pipeline sustained).")});
  rows.push_back({Q::tr("D2H bandwidth"),
                  Q::tr("%1 busy · %2 wall").arg(formatGBps(m.d2hGBpsBusy), formatGBps(m.d2hGBpsWall)),
                  Q::tr("busy: bytes / time the copies ran;\nwall: bytes / makespan.")});
  rows.push_back({Q::tr("Compute busy"), formatPercent(m.computeBusy),
                  Q::tr("Fraction of the makespan the compute engine ran kernels.")});
  rows.push_back({Q::tr("H2D / D2H busy"), formatPercent(m.h2dBusy) + " / " + formatPercent(m.d2hBusy),
                  Q::tr("Fraction of the makespan each copy direction was busy.")});
  rows.push_back({Q::tr("Host busy"),
                  Q::tr("submit %1 · workers %2").arg(formatPercent(m.submitThreadBusy), formatPercent(m.workersBusy)),
                  Q::tr("Submit thread busy with API calls (syncs excluded); CPU workers busy with pre/postprocessing.")});
  rows.push_back({Q::tr("GPU idle"), formatPercent(m.gpuIdle), Q::tr("Fraction of the makespan with no GPU op running.")});
  rows.push_back({Q::tr("Overlap"),
                  Q::tr("%1 of compute · %2 of copies")
                      .arg(formatPercent(m.computeOverlappedByCopy), formatPercent(m.copyOverlappedByCompute)),
                  Q::tr("Of the compute engine's busy time, the fraction a copy also ran; and the reverse.")});
  if (!batches) {
    // The bottleneck comes from the engines' busy fractions, which need no batches.
    rows.push_back({Q::tr("Ideal bound"), notAvailable(), noBatches});
    rows.push_back({Q::tr("Efficiency"), notAvailable(), noBatches});
    rows.push_back({Q::tr("Bottleneck"), QString::fromStdString(std::string(toString(m.bottleneck))),
                    QString::fromStdString(m.bottleneckSentence)});
    return rows;
  }
  rows.push_back({Q::tr("Ideal bound"), formatDurationNs(m.idealBoundNs),
                  Q::tr("Shortest makespan these resources allow: for each of the copy engines (%1), the compute "
                        "engine and the host (CPU stages + API calls), its work for all batches plus one batch's "
                        "fill; the largest. Critical: %2.")
                      .arg(m.copyEngines)
                      .arg(QString::fromStdString(std::string(toString(m.critical))))});
  rows.push_back({Q::tr("Efficiency"), formatPercent(m.efficiency), Q::tr("Ideal bound / measured makespan.")});
  rows.push_back({Q::tr("Bottleneck"), QString::fromStdString(std::string(toString(m.bottleneck))),
                  QString::fromStdString(m.bottleneckSentence)});
  return rows;
}

}  // namespace pipescope::ui
