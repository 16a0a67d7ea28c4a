#include "controls/ConfigForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSpinBox>
#include <QVBoxLayout>

#include "controls/ByteSizeEdit.h"

namespace pipescope::ui {

namespace {

using namespace limits;

QComboBox* choiceBox(const std::vector<std::string_view>& names, const QString& tip) {
  auto* box = new QComboBox;
  for (auto n : names) box->addItem(QString::fromUtf8(n.data(), int(n.size())));
  box->setToolTip(tip);
  // Wide enough for the longest choice: a narrow dock wraps the row, never elides "managed-prefetch".
  box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  return box;
}

template <typename E>
void selectChoice(QComboBox* box, E value) {
  const std::string_view name = toString(value);
  box->setCurrentText(QString::fromUtf8(name.data(), int(name.size())));
}

template <typename E, typename Parse>
E currentChoice(const QComboBox* box, Parse parse, E fallback) {
  return parse(box->currentText().toStdString()).value_or(fallback);
}

// `suffix` is the plural unit (" streams"); a count of one reads " stream".
QSpinBox* intBox(int lo, int hi, const QString& suffix, const QString& tip) {
  auto* box = new QSpinBox;
  box->setRange(lo, hi);
  box->setToolTip(tip);
  box->setAccelerated(true);
  QString singular = suffix;
  if (singular.endsWith("es") && singular.endsWith("ches")) singular.chop(2);  // batches -> batch
  else if (singular.endsWith('s')) singular.chop(1);
  auto update = [box, suffix, singular](int v) { box->setSuffix(v == 1 ? singular : suffix); };
  QObject::connect(box, &QSpinBox::valueChanged, box, update);
  update(box->value());
  return box;
}

QDoubleSpinBox* realBox(double lo, double hi, int decimals, const QString& suffix, const QString& tip) {
  auto* box = new QDoubleSpinBox;
  box->setRange(lo, hi);
  box->setDecimals(decimals);
  box->setSuffix(suffix);
  box->setToolTip(tip);
  box->setAccelerated(true);
  return box;
}

QGroupBox* group(const QString& title, QFormLayout*& form) {
  auto* box = new QGroupBox(title);
  form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow dock puts the field under its label
  return box;
}

}  // namespace

ConfigForm::ConfigForm(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  QFormLayout* f = nullptr;

  layout->addWidget(group(tr("Transfers and streams"), f));
  mode_ = choiceBox(transferModeNames(),
                    tr("blocking: cudaMemcpy, the host waits for every copy and synchronises per batch.\n"
                       "async: cudaMemcpyAsync on streams, the host queues work and moves on.\n"
                       "Teaches: async alone does not overlap anything; it needs pinned memory and streams."));
  f->addRow(tr("Transfer mode"), mode_);
  memory_ = choiceBox(hostMemoryNames(),
                      tr("Where the host buffers live.\npageable: plain malloc, copies go through a staging buffer "
                         "and block the host.\npinned: cudaMallocHost, the copy engine reads it directly (fast, "
                         "async).\nregistered: cudaHostRegister on existing memory.\nmapped: zero-copy, kernels read "
                         "host memory over PCIe.\nmanaged / managed-prefetch: unified memory, pages migrate on "
                         "demand or are prefetched."));
  f->addRow(tr("Host memory"), memory_);
  streams_ = intBox(1, kMaxStreams, tr(" streams"),
                    tr("CUDA streams, 1..%1. Work in one stream runs in order; batches in different streams can "
                       "overlap copies with kernels.\nBlocking mode needs 1.")
                        .arg(kMaxStreams));
  f->addRow(tr("Streams"), streams_);
  order_ = choiceBox(issueOrderNames(),
                     tr("depth-first: all stages of batch i, then batch i+1.\nbreadth-first: all H2D copies, then "
                        "all kernels, then all D2H copies.\nTeaches: on single-queue (pre-Hyper-Q) GPUs issue order "
                        "decides what overlaps."));
  f->addRow(tr("Issue order"), order_);
  sync_ = choiceBox(syncModeNames(),
                    tr("How the host waits for the GPU: spin (lowest latency, burns a core), yield, or blocking "
                       "(sleeps, frees the core, wakes later)."));
  f->addRow(tr("Host sync"), sync_);

  layout->addWidget(group(tr("Batches"), f));
  batchSamples_ = intBox(1, kMaxBatchSamples, tr(" samples"),
                         tr("Samples per batch, 1..%1. Bigger batches amortise per-copy and launch overheads; the "
                            "batch (samples × sample size) must stay within %2.")
                             .arg(kMaxBatchSamples)
                             .arg(QString::fromStdString(formatBytes(kMaxBatchBytes))));
  f->addRow(tr("Batch size"), batchSamples_);
  sampleBytes_ = new ByteSizeEdit;
  sampleBytes_->setToolTip(tr("Input bytes per sample, 4 B..%1 (type 512K, 32M, 1G).\nSmall copies are "
                              "dominated by fixed latency; large ones reach the link's bandwidth.")
                               .arg(QString::fromStdString(formatBytes(kMaxSampleBytes))));
  f->addRow(tr("Sample size"), sampleBytes_);
  batchCount_ = intBox(0, kMaxBatchCount, tr(" batches"),
                       tr("Batches to run, 0..%1; 0 runs until you press Stop.").arg(kMaxBatchCount));
  batchCount_->setSpecialValueText(tr("until stopped"));
  f->addRow(tr("Batches"), batchCount_);

  layout->addWidget(group(tr("GPU work"), f));
  normalize_ = new QCheckBox(tr("Normalisation kernel"));
  normalize_->setToolTip(tr("A memory-bound kernel that normalises the batch: short, limited by device memory "
                            "bandwidth."));
  f->addRow(normalize_);
  model_ = choiceBox(modelPresetNames(),
                     tr("The model stage.\ncustom: a synthetic kernel costing the FLOP/byte below.\nlight / "
                        "heavy: GEMMs sized like a small / a large image network."));
  f->addRow(tr("Model"), model_);
  modelFlops_ = realBox(0, kMaxModelFlopsPerByte, 1, tr(" FLOP/B"),
                        tr("Arithmetic intensity of the custom model, 0..%1 FLOP per input byte (0 skips the "
                           "model).\nTeaches: raise it until the kernels hide the copies (compute-bound), lower it "
                           "to make the copies the bottleneck.")
                            .arg(kMaxModelFlopsPerByte));
  f->addRow(tr("Model cost"), modelFlops_);

  layout->addWidget(group(tr("CPU work"), f));
  cpuWorkers_ = intBox(1, kMaxCpuWorkers, tr(" threads"),
                       tr("CPU threads sharing pre- and postprocessing, 1..%1.\nTeaches: when the CPU lane is full "
                          "and the GPU idles, more workers help.")
                           .arg(kMaxCpuWorkers));
  f->addRow(tr("CPU workers"), cpuWorkers_);
  preprocess_ = realBox(0, kMaxCpuOpsPerByte, 2, tr(" ops/B"),
                        tr("CPU preprocessing work per input byte, 0..%1 (0 skips it).").arg(kMaxCpuOpsPerByte));
  f->addRow(tr("Preprocessing"), preprocess_);
  postprocess_ = realBox(0, kMaxCpuOpsPerByte, 2, tr(" ops/B"),
                         tr("CPU postprocessing work per output byte, 0..%1 (0 skips it).").arg(kMaxCpuOpsPerByte));
  f->addRow(tr("Postprocessing"), postprocess_);

  layout->addWidget(group(tr("Data movement"), f));
  residency_ = choiceBox(dataResidencyNames(),
                         tr("every-batch: the input is copied in for each batch.\nresident: copied once and kept on "
                            "the GPU.\nTeaches: the fastest copy is the one you do not make."));
  f->addRow(tr("Input data"), residency_);
  outputRatio_ = realBox(0.001, kMaxOutputRatio, 3, tr(" × input"),
                         tr("Output bytes per input byte, greater than 0, at most %1.").arg(kMaxOutputRatio));
  f->addRow(tr("Output size"), outputRatio_);
  roi_ = realBox(0.001, 1.0, 3, QString(),
                 tr("Fraction of the output copied back (region of interest), greater than 0, at most 1.\n"
                    "Teaches: copying back only what you need shortens the D2H stage."));
  roi_->setSingleStep(0.05);
  f->addRow(tr("Copy-back fraction"), roi_);
  chunks_ = intBox(1, kMaxTransferChunks, tr(" chunks"),
                   tr("Pieces each copy is split into, 1..%1.\nTeaches: many small copies pay the fixed per-copy "
                      "latency many times.")
                       .arg(kMaxTransferChunks));
  f->addRow(tr("Copy split"), chunks_);
  layout->addStretch(1);

  for (QComboBox* box : {mode_, memory_, order_, sync_, model_, residency_})
    connect(box, &QComboBox::currentIndexChanged, this, &ConfigForm::edited);
  for (QSpinBox* box : {streams_, batchSamples_, batchCount_, cpuWorkers_, chunks_})
    connect(box, &QSpinBox::valueChanged, this, &ConfigForm::edited);
  for (QDoubleSpinBox* box : {modelFlops_, preprocess_, postprocess_, outputRatio_, roi_})
    connect(box, &QDoubleSpinBox::valueChanged, this, &ConfigForm::edited);
  connect(normalize_, &QCheckBox::toggled, this, &ConfigForm::edited);
  connect(sampleBytes_, &ByteSizeEdit::bytesEdited, this, &ConfigForm::edited);

  setConfig(PipelineConfig{});
}

void ConfigForm::edited() {
  if (!loading_) emit configEdited();
}

void ConfigForm::setConfig(const PipelineConfig& c) {
  loading_ = true;
  selectChoice(mode_, c.mode);
  selectChoice(memory_, c.memory);
  streams_->setValue(c.streams);
  selectChoice(order_, c.order);
  selectChoice(sync_, c.sync);
  batchSamples_->setValue(c.batchSamples);
  sampleBytes_->setBytes(c.sampleBytes);
  batchCount_->setValue(c.batchCount);
  normalize_->setChecked(c.normalizeKernel);
  selectChoice(model_, c.model);
  modelFlops_->setValue(c.modelFlopsPerByte);
  cpuWorkers_->setValue(c.cpuWorkers);
  preprocess_->setValue(c.preprocessOpsPerByte);
  postprocess_->setValue(c.postprocessOpsPerByte);
  selectChoice(residency_, c.residency);
  outputRatio_->setValue(c.outputRatio);
  roi_->setValue(c.roiFraction);
  chunks_->setValue(c.transferChunks);
  loading_ = false;
}

std::optional<PipelineConfig> ConfigForm::config(QString* error) const {
  PipelineConfig c;
  c.mode = currentChoice(mode_, parseTransferMode, c.mode);
  c.memory = currentChoice(memory_, parseHostMemory, c.memory);
  c.streams = streams_->value();
  c.order = currentChoice(order_, parseIssueOrder, c.order);
  c.sync = currentChoice(sync_, parseSyncMode, c.sync);
  c.batchSamples = batchSamples_->value();
  c.batchCount = batchCount_->value();
  c.normalizeKernel = normalize_->isChecked();
  c.model = currentChoice(model_, parseModelPreset, c.model);
  c.modelFlopsPerByte = modelFlops_->value();
  c.cpuWorkers = cpuWorkers_->value();
  c.preprocessOpsPerByte = preprocess_->value();
  c.postprocessOpsPerByte = postprocess_->value();
  c.residency = currentChoice(residency_, parseDataResidency, c.residency);
  c.outputRatio = outputRatio_->value();
  c.roiFraction = roi_->value();
  c.transferChunks = chunks_->value();
  const auto bytes = sampleBytes_->bytes();
  if (!bytes) {
    if (error)
      *error = tr("sample size = '%1': not a byte count; type a number with an optional unit, e.g. 512K, 32M, 1G")
                   .arg(sampleBytes_->text());
    return std::nullopt;
  }
  c.sampleBytes = *bytes;
  return c;
}

}  // namespace pipescope::ui
