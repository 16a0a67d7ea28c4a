#include "controls/BackendSelector.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>

#include "sim/DeviceProfile.h"

namespace pipescope::ui {

namespace {

/// The built-in profiles by name; each item's tooltip (the profile's description)
/// is read when the list first opens: parsing every profile for it cost the
/// window's first frame ~2 ms.
class ProfileComboBox : public QComboBox {
 public:
  ProfileComboBox() {
    for (const auto& name : builtinProfileNames()) addItem(QString::fromStdString(name));
  }
  void showPopup() override {
    if (!described_) {
      described_ = true;
      for (int i = 0; i < count(); ++i)
        if (const auto profile = builtinProfile(itemText(i).toStdString()))
          setItemData(i, QString::fromStdString(profile->description), Qt::ToolTipRole);
    }
    QComboBox::showPopup();
  }

 private:
  bool described_ = false;
};

}  // namespace

BackendSelector::BackendSelector(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);

  kind_ = new QComboBox;
  kind_->addItem(tr("Auto (CUDA GPU if present)"), int(BackendChoice::Auto));
  kind_->addItem(tr("CUDA GPU"), int(BackendChoice::Cuda));
  kind_->addItem(tr("Simulator"), int(BackendChoice::Simulator));
  if (!cudaBackendBuilt()) {
    // Keep the entry so users learn it exists, but say why it cannot be chosen.
    kind_->setItemData(1, tr("This build has no CUDA backend (built without nvcc)."), Qt::ToolTipRole);
  }
  kind_->setToolTip(tr("Auto runs on the CUDA GPU when one is usable and falls back to the simulator.\n"
                       "The simulator models the pipeline on a chosen device profile; it runs anywhere."));
  form->addRow(tr("Backend"), kind_);

  profile_ = new ProfileComboBox;
  profile_->setToolTip(tr("The simulated device: copy engines, hardware queues, link and compute speed."));
  form->addRow(tr("Device profile"), profile_);

  slowdown_ = new QDoubleSpinBox;
  slowdown_->setRange(0, 10000);
  slowdown_->setDecimals(0);
  slowdown_->setSuffix(tr(" ×"));
  slowdown_->setSpecialValueText(tr("as fast as possible"));
  slowdown_->setToolTip(tr("Simulator slow motion: wall-clock time per simulated time. At 200 ×, a 25 ms "
                           "run plays over 5 s so you can watch the pipeline fill."));
  form->addRow(tr("Slow motion"), slowdown_);

  setOptions(BackendOptions{BackendChoice::Auto, "h200", kDefaultSlowdown, 0});
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    emit optionsChanged();
  });
  connect(profile_, &QComboBox::currentIndexChanged, this, &BackendSelector::optionsChanged);
  connect(slowdown_, &QDoubleSpinBox::valueChanged, this, &BackendSelector::optionsChanged);
}

BackendOptions BackendSelector::options() const {
  BackendOptions o;
  o.choice = BackendChoice(kind_->currentData().toInt());
  o.simulatorProfile = profile_->currentText().toStdString();
  o.simulatorSlowdown = slowdown_->value();
  return o;
}

void BackendSelector::setOptions(const BackendOptions& o) {
  const QSignalBlocker b1(kind_), b2(profile_), b3(slowdown_);
  kind_->setCurrentIndex(std::max(0, kind_->findData(int(o.choice))));
  const int p = profile_->findText(QString::fromStdString(o.simulatorProfile));
  if (p >= 0) profile_->setCurrentIndex(p);
  slowdown_->setValue(o.simulatorSlowdown);
  updateEnabled();
}

void BackendSelector::updateEnabled() {
  // Auto may fall back to the simulator, so its settings stay editable then.
  const bool sim = BackendChoice(kind_->currentData().toInt()) != BackendChoice::Cuda;
  profile_->setEnabled(sim);
  slowdown_->setEnabled(sim);
}

}  // namespace pipescope::ui
