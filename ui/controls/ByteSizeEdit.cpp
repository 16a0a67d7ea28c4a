#include "controls/ByteSizeEdit.h"

#include "config/PipelineConfig.h"

namespace pipescope::ui {

ByteSizeEdit::ByteSizeEdit(QWidget* parent) : QLineEdit(parent) {
  setPlaceholderText(tr("e.g. 512K, 32M, 1G"));
  connect(this, &QLineEdit::textEdited, this, [this] { emit bytesEdited(); });
}

void ByteSizeEdit::setBytes(std::uint64_t bytes) {
  // formatBytes rounds to 3 digits; show the exact count when that would change it.
  const std::string readable = formatBytes(bytes);
  std::string compact = readable;
  std::erase(compact, ' ');
  setText(parseBytes(compact) == bytes ? QString::fromStdString(readable) : QString::number(bytes));
}

std::optional<std::uint64_t> ByteSizeEdit::bytes() const {
  return parseBytes(text().trimmed().remove(' ').toStdString());
}

}  // namespace pipescope::ui
