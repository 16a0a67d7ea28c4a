#pragma once
// A byte count typed the way people say it ("512K", "32 MiB", "4096"). A spin box
// cannot span 4 B..1 GiB readably; this edit shows formatBytes() and accepts any
// spelling parseBytes() knows. Text it cannot read is flagged, never guessed.
#include <QLineEdit>
#include <cstdint>
#include <optional>

namespace pipescope::ui {

class ByteSizeEdit : public QLineEdit {
  Q_OBJECT
 public:
  explicit ByteSizeEdit(QWidget* parent = nullptr);
  void setBytes(std::uint64_t bytes);
  /// nullopt while the text is not a byte count.
  std::optional<std::uint64_t> bytes() const;

 signals:
  void bytesEdited();  ///< the user changed the text (valid or not)
};

}  // namespace pipescope::ui
