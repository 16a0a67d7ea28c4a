#include "sweep/SweepGridForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <stdexcept>

#include "sim/DeviceProfile.h"
#include "sweep/AxisLists.h"

namespace pipescope::ui {

namespace {
QString joinNames(const std::vector<std::string_view>& names) {
  QStringList l;
  for (auto n : names) l << QString::fromUtf8(n.data(), qsizetype(n.size()));
  return l.join(", ");
}
}  // namespace

SweepGridForm::SweepGridForm(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  batchSizes_ = new QLineEdit("1M,4M,16M,64M");
  batchSizes_->setToolTip(tr("Batch sizes in bytes, comma-separated (units K, M, G). Each must be a whole number of "
                             "samples of the control panel's sample size."));
  streams_ = new QLineEdit("1,2,4,8");
  streams_->setToolTip(tr("Stream counts, comma-separated, 1..%1.").arg(limits::kMaxStreams));
  memories_ = new QLineEdit;
  memories_->setPlaceholderText(tr("as in the controls"));
  memories_->setToolTip(tr("Optional: host memory types as a grid axis, e.g. pageable,pinned (%1).")
                            .arg(joinNames(hostMemoryNames())));
  models_ = new QLineEdit;
  models_->setPlaceholderText(tr("as in the controls"));
  models_->setToolTip(tr("Optional: model presets as a grid axis, e.g. light,heavy (%1).").arg(joinNames(modelPresetNames())));
  batches_ = new QSpinBox;
  batches_->setRange(1, 100000);
  batches_->setValue(20);
  batches_->setToolTip(tr("Measured batches per point and repetition (after the warm-up)."));
  warmup_ = new QSpinBox;
  warmup_->setRange(0, sweep_limits::kMaxWarmup);
  warmup_->setValue(2);
  warmup_->setToolTip(tr("Batches run first at every point and left out of its figures."));
  repeats_ = new QSpinBox;
  repeats_->setRange(1, sweep_limits::kMaxRepeats);
  repeats_->setValue(3);
  repeats_->setToolTip(tr("Repetitions per point, for the spread (median, min, max). The simulator is deterministic "
                          "and runs each point once."));
  predict_ = new QCheckBox(tr("Simulator prediction"));
  predict_->setChecked(true);
  predict_->setToolTip(tr("Also run every point on the simulator with this profile and draw its prediction as dashed "
                          "lines (skipped when the sweep itself runs on the same simulator profile)."));
  predictProfile_ = new QComboBox;
  for (const auto& name : builtinProfileNames()) predictProfile_->addItem(QString::fromStdString(name));
  predictProfile_->setCurrentText("h200");

  form->addRow(tr("Batch sizes"), batchSizes_);
  form->addRow(tr("Streams"), streams_);
  form->addRow(tr("Host memory"), memories_);
  form->addRow(tr("Model"), models_);
  form->addRow(tr("Batches per point"), batches_);
  form->addRow(tr("Warm-up batches"), warmup_);
  form->addRow(tr("Repetitions"), repeats_);
  form->addRow(predict_);
  form->addRow(tr("on profile"), predictProfile_);

  for (QLineEdit* e : {batchSizes_, streams_, memories_, models_}) connect(e, &QLineEdit::textChanged, this, &SweepGridForm::edited);
  for (QSpinBox* s : {batches_, warmup_, repeats_}) connect(s, &QSpinBox::valueChanged, this, &SweepGridForm::edited);
  connect(predict_, &QCheckBox::toggled, predictProfile_, &QWidget::setEnabled);
}

std::optional<SweepSpec> SweepGridForm::spec(const PipelineConfig& base, QString* error) const {
  QStringList problems;
  SweepSpec s;
  s.base = base;
  s.batches = batches_->value();
  s.warmupBatches = warmup_->value();
  s.repeats = repeats_->value();
  auto field = [&](auto&& parse) {
    try {
      parse();
    } catch (const std::invalid_argument& e) {
      problems << QString::fromUtf8(e.what());
    }
  };
  field([&] {
    const auto sizes = parseSizeList("Batch sizes", batchSizes_->text().toStdString());
    s.batchSamples = batchSamplesFor("Batch sizes", sizes, base.sampleBytes);
  });
  field([&] { s.streams = parseCountList("Streams", streams_->text().toStdString()); });
  if (!memories_->text().trimmed().isEmpty())
    field([&] { s.memories = parseMemoryList("Host memory", memories_->text().toStdString()); });
  if (!models_->text().trimmed().isEmpty())
    field([&] { s.models = parseModelList("Model", models_->text().toStdString()); });
  if (problems.isEmpty())
    for (const auto& p : validateSweep(s)) problems << QString::fromStdString(p);
  if (!problems.isEmpty()) {
    if (error) *error = problems.join('\n');
    return std::nullopt;
  }
  return s;
}

void SweepGridForm::setSpec(const SweepSpec& s) {
  std::vector<std::uint64_t> sizes;
  for (int samples : s.batchSamples) sizes.push_back(std::uint64_t(samples) * s.base.sampleBytes);
  batchSizes_->setText(QString::fromStdString(formatSizeList(sizes)));
  QStringList streams, memories, models;
  for (int n : s.streams) streams << QString::number(n);
  for (auto m : s.memories) memories << QString::fromUtf8(toString(m).data(), qsizetype(toString(m).size()));
  for (auto m : s.models) models << QString::fromUtf8(toString(m).data(), qsizetype(toString(m).size()));
  streams_->setText(streams.join(','));
  memories_->setText(memories.join(','));
  models_->setText(models.join(','));
  batches_->setValue(s.batches);
  warmup_->setValue(s.warmupBatches);
  repeats_->setValue(s.repeats);
}

bool SweepGridForm::predictionWanted() const { return predict_->isChecked(); }
std::string SweepGridForm::predictionProfile() const { return predictProfile_->currentText().toStdString(); }
void SweepGridForm::setPrediction(bool on, const QString& profile) {
  predict_->setChecked(on);
  predictProfile_->setCurrentText(profile);
}

}  // namespace pipescope::ui
