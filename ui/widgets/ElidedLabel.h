#pragma once
// A one-line label that may get narrower than its text (a status bar on a small
// screen): it then shows the text elided, and its tooltip says it whole, so nothing
// is cut silently and a long message never widens the window.
#include <QLabel>

namespace pipescope::ui {

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  explicit ElidedLabel(QWidget* parent = nullptr);

  /// The text, and what the tooltip adds to it (the tooltip is `tip`, preceded by
  /// the whole text when it is elided).
  void setFullText(const QString& text, const QString& tip = {});
  QString fullText() const { return full_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void elide();

  QString full_;
  QString tip_;
};

}  // namespace pipescope::ui
