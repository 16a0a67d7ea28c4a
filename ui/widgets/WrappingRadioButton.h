#pragma once
// A radio button whose text wraps to the width it gets, as a label with word wrap
// does: a lesson's answers are sentences, and a plain QRadioButton's sentence would
// set the width of the whole Lessons dock (or be cut at its edge). Keyboard and
// button-group behaviour are QRadioButton's; the whole widget is clickable and the
// focus frame is drawn around the text.
#include <QRadioButton>

namespace pipescope::ui {

class WrappingRadioButton : public QRadioButton {
  Q_OBJECT
 public:
  explicit WrappingRadioButton(const QString& text, QWidget* parent = nullptr);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool hitButton(const QPoint& pos) const override;

 private:
  int indicatorWidth() const;  ///< the round indicator and the space after it
  QRect textRect(int width) const;
};

}  // namespace pipescope::ui
