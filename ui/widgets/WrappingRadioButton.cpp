#include "widgets/WrappingRadioButton.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOptionButton>
#include <algorithm>

namespace pipescope::ui {

namespace {
constexpr int kFlags = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;
constexpr int kFocusMargin = 2;  // room for the focus frame around the text
}  // namespace

WrappingRadioButton::WrappingRadioButton(const QString& text, QWidget* parent) : QRadioButton(text, parent) {
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

int WrappingRadioButton::indicatorWidth() const {
  return style()->pixelMetric(QStyle::PM_ExclusiveIndicatorWidth, nullptr, this) +
         style()->pixelMetric(QStyle::PM_RadioButtonLabelSpacing, nullptr, this);
}

QRect WrappingRadioButton::textRect(int width) const {
  const int left = indicatorWidth() + kFocusMargin;
  const QRect bounds = fontMetrics().boundingRect(QRect(0, 0, std::max(1, width - left - kFocusMargin), 100000), kFlags,
                                                  text());
  return {left, kFocusMargin, std::max(1, width - left - kFocusMargin), bounds.height()};
}

int WrappingRadioButton::heightForWidth(int width) const {
  const int indicator = style()->pixelMetric(QStyle::PM_ExclusiveIndicatorHeight, nullptr, this);
  return std::max(indicator, textRect(width).height() + 2 * kFocusMargin);
}

QSize WrappingRadioButton::sizeHint() const {
  // One line up to a comfortable reading width; the layout narrows it and it wraps.
  const int oneLine = fontMetrics().horizontalAdvance(text()) + indicatorWidth() + 2 * kFocusMargin + 1;
  const int width = std::min(oneLine, 40 * fontMetrics().averageCharWidth());
  return {width, heightForWidth(width)};
}

QSize WrappingRadioButton::minimumSizeHint() const {
  // The longest word must fit on a line of its own.
  int word = 0;
  for (const QString& w : text().split(' ', Qt::SkipEmptyParts)) word = std::max(word, fontMetrics().horizontalAdvance(w));
  // Height: one line; layouts ask heightForWidth() for the height at the width they give.
  const int width = word + indicatorWidth() + 2 * kFocusMargin + 1;
  const int indicator = style()->pixelMetric(QStyle::PM_ExclusiveIndicatorHeight, nullptr, this);
  return {width, std::max(indicator, fontMetrics().height() + 2 * kFocusMargin)};
}

bool WrappingRadioButton::hitButton(const QPoint& pos) const { return rect().contains(pos); }

void WrappingRadioButton::paintEvent(QPaintEvent*) {
  QPainter p(this);
  QStyleOptionButton opt;
  initStyleOption(&opt);
  const int indicatorH = style()->pixelMetric(QStyle::PM_ExclusiveIndicatorHeight, nullptr, this);
  const int lineH = fontMetrics().height();
  // The indicator sits on the first line of text.
  opt.rect = QRect(0, kFocusMargin + std::max(0, (lineH - indicatorH) / 2),
                   style()->pixelMetric(QStyle::PM_ExclusiveIndicatorWidth, nullptr, this), indicatorH);
  style()->drawPrimitive(QStyle::PE_IndicatorRadioButton, &opt, &p, this);
  const QRect text = textRect(width());
  style()->drawItemText(&p, text, kFlags, palette(), isEnabled(), this->text(), QPalette::WindowText);
  if (hasFocus()) {
    QStyleOptionFocusRect focus;
    focus.initFrom(this);
    focus.rect = text.adjusted(-kFocusMargin, -kFocusMargin, kFocusMargin, kFocusMargin);
    style()->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, &p, this);
  }
}

}  // namespace pipescope::ui
