#include "analysis/WaitCauseStyle.h"

#include <QObject>
#include <QPainter>

namespace pipescope::ui {

QColor waitCauseColor(WaitCause cause) {
  switch (cause) {
    case WaitCause::StreamOrder: return QColor(0xB9, 0xC6, 0xD9);      // pale slate: queued in the stream
    case WaitCause::EngineBusy: return QColor(0xF2, 0xA7, 0xA0);       // pale red: the engine was taken
    case WaitCause::DeviceLatency: return QColor(0xC9, 0xB8, 0xE6);    // pale violet: launch / DMA latency
    case WaitCause::HostSubmit: return QColor(0xEB, 0xBF, 0xD8);       // pale pink: like API calls
    case WaitCause::HostCpuWork: return QColor(0xD4, 0xD4, 0xD4);      // pale grey: like CPU stages
    case WaitCause::PageableStaging: return QColor(0xF7, 0xCF, 0x8C);  // pale orange: staging copy
    case WaitCause::HostSync: return QColor(0xF3, 0xEC, 0x9C);         // pale yellow: like host sync
    case WaitCause::PeerActivation: return QColor(0xDD, 0xB3, 0xC8);   // pale wine: like peer copies
    case WaitCause::CollectiveWait: return QColor(0xB8, 0xB3, 0xE0);   // pale indigo: like collectives
  }
  return QColor(Qt::lightGray);
}

Qt::BrushStyle waitCausePattern(WaitCause cause) {
  switch (cause) {
    case WaitCause::StreamOrder: return Qt::HorPattern;
    case WaitCause::EngineBusy: return Qt::BDiagPattern;
    case WaitCause::DeviceLatency: return Qt::CrossPattern;
    case WaitCause::HostSubmit: return Qt::FDiagPattern;
    case WaitCause::HostCpuWork: return Qt::Dense6Pattern;
    case WaitCause::PageableStaging: return Qt::DiagCrossPattern;
    case WaitCause::HostSync: return Qt::VerPattern;
    case WaitCause::PeerActivation: return Qt::Dense5Pattern;
    case WaitCause::CollectiveWait: return Qt::Dense4Pattern;
  }
  return Qt::SolidPattern;
}

QString waitCauseLabel(WaitCause cause) { return QString::fromUtf8(toString(cause).data(), int(toString(cause).size())); }

QString waitCauseExplanation(WaitCause cause) {
  switch (cause) {
    case WaitCause::StreamOrder: return QObject::tr("submitted, but behind earlier work in its own stream");
    case WaitCause::EngineBusy: return QObject::tr("its stream reached it, but its engine was running another op");
    case WaitCause::DeviceLatency: return QObject::tr("engine free, not started yet: launch or DMA latency");
    case WaitCause::HostSubmit: return QObject::tr("the host had not submitted it yet (API calls, host overhead)");
    case WaitCause::HostCpuWork: return QObject::tr("the host was busy with CPU pre/postprocessing");
    case WaitCause::PageableStaging: return QObject::tr("the host was held by a pageable (staged) copy");
    case WaitCause::HostSync: return QObject::tr("the host was waiting in a synchronisation");
    case WaitCause::PeerActivation: return QObject::tr("waiting for a peer's activation: the copy from the GPU before");
    case WaitCause::CollectiveWait: return QObject::tr("waiting for the collective (all-reduce) on its GPU to finish");
  }
  return {};
}

void paintWaitCause(QPainter& p, const QRectF& r, WaitCause cause) {
  const QColor fill = waitCauseColor(cause);
  p.fillRect(r, fill);
  p.fillRect(r, QBrush(fill.darker(175), waitCausePattern(cause)));
}

}  // namespace pipescope::ui
