#include "controls/ControlPanel.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "config/Presets.h"
#include "controls/BackendSelector.h"
#include "controls/ConfigForm.h"
#include "controls/TraceSourceBox.h"
#include "widgets/VerticalScrollArea.h"

namespace pipescope::ui {

ControlPanel::ControlPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);

  source_ = new TraceSourceBox;
  source_->setVisible(false);
  outer->addWidget(source_);
  settings_ = new QWidget;
  auto* settingsLayout = new QVBoxLayout(settings_);
  settingsLayout->setContentsMargins(0, 0, 0, 0);
  auto* presetRow = new QHBoxLayout;
  presetRow->addWidget(new QLabel(tr("Preset")));
  preset_ = new QComboBox;
  preset_->addItem(tr("(custom)"));
  for (const auto& p : builtinPresets()) {
    preset_->addItem(QString::fromStdString(p.name));
    preset_->setItemData(preset_->count() - 1, QString::fromStdString(p.summary), Qt::ToolTipRole);
  }
  preset_->setToolTip(tr("The teaching sequence: naive → pinned → async → multi-stream, and a few bottlenecks."));
  presetRow->addWidget(preset_, 1);
  settingsLayout->addLayout(presetRow);

  teaches_ = new QLabel;
  teaches_->setWordWrap(true);
  teaches_->setStyleSheet("color: palette(mid); font-style: italic;");
  settingsLayout->addWidget(teaches_);

  auto* buttons = new QHBoxLayout;
  start_ = new QPushButton(tr("Start"));
  start_->setToolTip(tr("Start a run with this configuration (F5)"));
  stop_ = new QPushButton(tr("Stop"));
  stop_->setToolTip(tr("Stop the run now; everything recorded is kept (Shift+F5)"));
  stop_->setEnabled(false);
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  settingsLayout->addLayout(buttons);

  issues_ = new QLabel;
  issues_->setWordWrap(true);
  issues_->setTextFormat(Qt::PlainText);
  issues_->setStyleSheet("color: #b00020; font-weight: 600;");
  issues_->setObjectName("validationMessages");
  settingsLayout->addWidget(issues_);
  liveNote_ = new QLabel(tr("Run in progress: changes apply at the next batch boundary."));
  liveNote_->setWordWrap(true);
  liveNote_->setStyleSheet("color: #1f5fa8;");
  liveNote_->setVisible(false);
  settingsLayout->addWidget(liveNote_);

  auto* inner = new QWidget;
  auto* innerLayout = new QVBoxLayout(inner);
  innerLayout->setContentsMargins(0, 0, 0, 0);
  form_ = new ConfigForm;
  innerLayout->addWidget(form_);
  auto* backendBox = new QGroupBox(tr("Backend"));
  auto* backendLayout = new QVBoxLayout(backendBox);
  backend_ = new BackendSelector;
  backendLayout->addWidget(backend_);
  innerLayout->addWidget(backendBox);
  settingsLayout->addWidget(new VerticalScrollArea(inner), 1);

  outer->addWidget(settings_, 1);
  outer->addStretch(0);  // keeps the trace box at the top while the settings are hidden
  connect(source_, &TraceSourceBox::newRunRequested, this, &ControlPanel::clearTraceSource);
  connect(source_, &TraceSourceBox::runConfigurationRequested, this, [this] {
    const auto c = sourceConfig_;
    clearTraceSource();
    if (!c) return;
    setConfig(*c);
    if (auto valid = config()) emit startRequested(*valid, backend_->options());
  });

  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index <= 0) {
      teaches_->clear();
      return;
    }
    if (auto p = findPreset(preset_->currentText().toStdString())) {
      form_->setConfig(p->config);
      teaches_->setText(QString::fromStdString(p->teaches));
      onEdited();
    }
  });
  connect(form_, &ConfigForm::configEdited, this, [this] {
    syncPresetCombo();
    onEdited();
  });
  connect(start_, &QPushButton::clicked, this, [this] {
    if (auto c = config()) emit startRequested(*c, backend_->options());
  });
  connect(stop_, &QPushButton::clicked, this, &ControlPanel::stopRequested);
  connect(backend_, &BackendSelector::optionsChanged, this, &ControlPanel::configChanged);
  revalidate();
}

void ControlPanel::showTraceSource(const TraceSource& source, std::optional<PipelineConfig> configuration) {
  sourceConfig_ = source.hasConfiguration ? std::move(configuration) : std::nullopt;
  TraceSource shown = source;
  shown.hasConfiguration = sourceConfig_.has_value();
  source_->setSource(shown);
  source_->setVisible(true);
  settings_->setVisible(false);
}

void ControlPanel::clearTraceSource() {
  sourceConfig_.reset();
  source_->setVisible(false);
  settings_->setVisible(true);
}

bool ControlPanel::showingTraceSource() const { return !source_->isHidden(); }

void ControlPanel::setConfig(const PipelineConfig& config) {
  form_->setConfig(config);
  syncPresetCombo();
  revalidate();
  emit configChanged();
}

std::optional<PipelineConfig> ControlPanel::config() const {
  auto c = form_->config();
  if (!c || !validate(*c).empty()) return std::nullopt;
  return c;
}

QStringList ControlPanel::issues() const {
  QString parseError;
  const auto c = form_->config(&parseError);
  if (!c) return {parseError};
  QStringList list;
  for (const auto& issue : validate(*c)) list << QString::fromStdString(issue.message());
  return list;
}

bool ControlPanel::selectPreset(const QString& name) {
  const int index = preset_->findText(name);
  if (index <= 0) return false;
  preset_->setCurrentIndex(index);
  return true;
}

QString ControlPanel::presetName() const { return preset_->currentIndex() > 0 ? preset_->currentText() : QString(); }

BackendOptions ControlPanel::backendOptions() const { return backend_->options(); }
void ControlPanel::setBackendOptions(const BackendOptions& options) { backend_->setOptions(options); }

void ControlPanel::setRunning(bool running) {
  running_ = running;
  liveNote_->setVisible(running);
  stop_->setEnabled(running);
  backend_->setEnabled(!running);
  revalidate();
}

void ControlPanel::onEdited() {
  revalidate();
  emit configChanged();
  if (running_)
    if (auto c = config()) emit liveConfigEdited(*c);
}

void ControlPanel::revalidate() {
  const QStringList list = issues();
  issues_->setText(list.join('\n'));
  issues_->setVisible(!list.isEmpty());
  start_->setEnabled(!running_ && list.isEmpty());
  start_->setToolTip(list.isEmpty() ? tr("Start a run with this configuration (F5)")
                                    : tr("Fix the configuration first:\n") + list.join('\n'));
}

void ControlPanel::syncPresetCombo() {
  // Name the preset while the knobs match it, so a screenshot's configuration can be
  // quoted by name; any edit away from it makes the configuration custom.
  const auto c = form_->config();
  int match = 0;
  if (c)
    for (int i = 1; i < preset_->count(); ++i)
      if (auto p = findPreset(preset_->itemText(i).toStdString()); p && p->config == *c) {
        match = i;
        break;
      }
  const QSignalBlocker block(preset_);
  preset_->setCurrentIndex(match);
  if (match == 0) teaches_->clear();
  else if (auto p = findPreset(preset_->currentText().toStdString())) teaches_->setText(QString::fromStdString(p->teaches));
}

}  // namespace pipescope::ui
