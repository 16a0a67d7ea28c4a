#include "timeline/LaneDescription.h"

#include <QStringList>
#include <array>

namespace pipescope::ui {

namespace {

QString kindPlural(OpKind k) {
  switch (k) {
    case OpKind::Preprocess: return QStringLiteral("preprocess");
    case OpKind::CopyH2D: return QStringLiteral("H2D");
    case OpKind::Kernel: return QStringLiteral("kernels");
    case OpKind::CopyD2H: return QStringLiteral("D2H");
    case OpKind::Postprocess: return QStringLiteral("postprocess");
    case OpKind::HostSync: return QStringLiteral("syncs");
    case OpKind::ApiCall: return QStringLiteral("API calls");
    case OpKind::Memset: return QStringLiteral("memsets");
    case OpKind::Annotation: return QStringLiteral("ranges");
    case OpKind::PeerCopy: return QStringLiteral("peer copies");
    case OpKind::Collective: return QStringLiteral("collectives");
  }
  return {};
}

// GPU kinds first: they are what a stream lane is for.
constexpr std::array<OpKind, kOpKindCount> kKindOrder = {
    OpKind::CopyH2D,    OpKind::Kernel,      OpKind::CopyD2H, OpKind::PeerCopy, OpKind::Collective, OpKind::Memset,
    OpKind::Preprocess, OpKind::Postprocess, OpKind::ApiCall, OpKind::HostSync, OpKind::Annotation};

QString whatRan(std::uint32_t mask) {
  QStringList parts;
  for (OpKind k : kKindOrder)
    if (mask & (1u << unsigned(k))) parts << kindPlural(k);
  return parts.join(QStringLiteral(", "));
}

QString whatItIs(const LaneRow& row, const LaneIndex& index) {
  const LaneIndex::LaneOps& ops = index.lane(row.lane);
  switch (row.kind) {
    case LaneKind::Stream: {
      // The CUDA stream id the ops carry (imported lanes are numbered in file order).
      if (!ops.empty() && index.view().size() > 0) {
        const Op op = index.view().at(ops.op(0));
        if (op.stream != kNoStream) return QStringLiteral("stream id %1").arg(op.stream);
      }
      return QStringLiteral("CUDA stream");
    }
    case LaneKind::CopyEngineH2D: return QStringLiteral("host → device, all streams");
    case LaneKind::CopyEngineD2H: return QStringLiteral("device → host, all streams");
    case LaneKind::CopyEngine: return QStringLiteral("the one copy engine, both ways");
    case LaneKind::ComputeEngine: return QStringLiteral("SMs: kernels, all streams");
    case LaneKind::HostSubmit: return QStringLiteral("calls CUDA");
    case LaneKind::HostWorker: return QStringLiteral("CPU worker");
    case LaneKind::HostOther: return QStringLiteral("host thread");
    case LaneKind::PeerLink: return QStringLiteral("GPU → GPU link");
    case LaneKind::Collective: return QStringLiteral("communicator: collectives of all GPUs");
  }
  return {};
}

// The tooltip's first line: the same in full words.
QString longDescription(const LaneRow& row, const LaneIndex& index) {
  switch (row.kind) {
    case LaneKind::Stream:
      return QStringLiteral("CUDA ") + whatItIs(row, index) +
             QStringLiteral(": its ops in the order the stream runs them");
    case LaneKind::CopyEngineH2D: return QStringLiteral("copy engine, host → device: the H2D copies of every stream");
    case LaneKind::CopyEngineD2H: return QStringLiteral("copy engine, device → host: the D2H copies of every stream");
    case LaneKind::CopyEngine: return QStringLiteral("the device's one copy engine: copies in both directions");
    case LaneKind::ComputeEngine: return QStringLiteral("compute engine (the SMs): the kernels of every stream");
    case LaneKind::HostSubmit: return QStringLiteral("the host thread calling CUDA (API calls, syncs)");
    case LaneKind::HostWorker: return QStringLiteral("a CPU worker thread (pre- and postprocessing)");
    case LaneKind::HostOther: return QStringLiteral("a host thread");
    case LaneKind::PeerLink: return QStringLiteral("a link from one GPU to another: the peer copies it carried");
    case LaneKind::Collective:
      return QStringLiteral("a communicator: each collective from the last GPU joining it to its end");
  }
  return {};
}

}  // namespace

QString laneSubtitle(const LaneRow& row, const LaneIndex& index) {
  if (row.group) return QStringLiteral("click to show or hide");
  const QString what = whatItIs(row, index);
  if (isEngineLane(row.kind)) return what;
  const QString ran = whatRan(index.lane(row.lane).kindMask);
  return ran.isEmpty() ? what : what + QStringLiteral(" · ") + ran;
}

QString laneTooltip(const LaneRow& row, const LaneIndex& index, int foldableLanes) {
  if (row.group)
    return QStringLiteral(
               "%1 host lanes that only carry call-stack ranges (for example the Python ops of a PyTorch "
               "profile, one lane per nesting depth).\nClick to show or hide them.")
        .arg(foldableLanes);
  QStringList lines{row.name, longDescription(row, index)};
  const LaneIndex::LaneOps& ops = index.lane(row.lane);
  std::array<std::int64_t, kOpKindCount> counts{};
  for (std::size_t i = 0; i < ops.size(); ++i) ++counts[std::size_t(index.view().at(ops.op(i)).kind)];
  QStringList ran;
  for (OpKind k : kKindOrder)
    if (counts[std::size_t(k)] > 0) ran << QStringLiteral("%1 %2").arg(counts[std::size_t(k)]).arg(kindPlural(k));
  lines << (ran.isEmpty() ? QStringLiteral("no operations") : QStringLiteral("ran: ") + ran.join(QStringLiteral(", ")));
  return lines.join('\n');
}

}  // namespace pipescope::ui
