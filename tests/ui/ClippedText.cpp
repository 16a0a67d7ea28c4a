#include "ClippedText.h"

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QListView>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTableView>
#include <QTextDocument>
#include <QToolButton>
#include <algorithm>

namespace pipescope::ui::testing {

namespace {

constexpr int kSlack = 1;  // a pixel of rounding never cuts a glyph

QString withoutMnemonics(QString text) {
  text.replace("&&", QStringLiteral("\x01"));
  text.remove('&');
  text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
  return text;
}

QString plainText(const QString& text, Qt::TextFormat format) {
  if (format == Qt::PlainText || (format == Qt::AutoText && !Qt::mightBeRichText(text))) return text;
  QTextDocument doc;
  doc.setHtml(text);
  return doc.toPlainText();
}

QString describeWidget(const QWidget* w) {
  QString s = QString::fromLatin1(w->metaObject()->className());
  if (!w->objectName().isEmpty()) s += " '" + w->objectName() + "'";
  QStringList where;
  for (const QWidget* p = w->parentWidget(); p && !p->isWindow(); p = p->parentWidget()) {
    if (qobject_cast<const QDockWidget*>(p)) {
      where << p->objectName();
      break;
    }
    if (!p->objectName().isEmpty() && !p->objectName().startsWith("qt_")) where << p->objectName();
  }
  if (!where.isEmpty()) s += " in " + where.join(" < ");
  if (auto* t = qobject_cast<const QTabBar*>(w)) s += QStringLiteral(" with %1 tabs").arg(t->count());
  return s + QStringLiteral(" (%1x%2)").arg(w->width()).arg(w->height());
}

bool isPipescopeWidget(const QWidget* w) {
  return QByteArray(w->metaObject()->className()).startsWith("pipescope::");
}

/// The text a widget shows, and whether the checks below measure it.
QString shownText(const QWidget* w) {
  if (auto* l = qobject_cast<const QLabel*>(w)) return l->text();
  if (auto* b = qobject_cast<const QAbstractButton*>(w)) return withoutMnemonics(b->text());
  if (auto* g = qobject_cast<const QGroupBox*>(w)) return withoutMnemonics(g->title());
  if (auto* c = qobject_cast<const QComboBox*>(w)) return c->currentText();
  if (auto* s = qobject_cast<const QAbstractSpinBox*>(w)) return s->text();
  if (auto* p = qobject_cast<const QProgressBar*>(w)) return p->isTextVisible() ? p->text() : QString();
  return {};
}

struct Finder {
  const QWidget* window;
  std::vector<ClippedFinding> found;

  void add(const QWidget* w, const QString& text, const QString& why) {
    found.push_back({describeWidget(w), text, why});
  }

  void checkLabel(const QLabel* l) {
    const QString text = l->text();
    if (text.isEmpty()) return;
    const QString plain = plainText(text, l->textFormat());
    if (!l->wordWrap()) {
      const QSize need = l->sizeHint();
      if (l->width() + kSlack < need.width()) add(l, plain, QStringLiteral("needs %1 px wide").arg(need.width()));
      else if (l->height() + kSlack < need.height()) add(l, plain, QStringLiteral("needs %1 px high").arg(need.height()));
      return;
    }
    const int need = l->heightForWidth(l->width());
    if (need > l->height() + kSlack) add(l, plain, QStringLiteral("wraps to %1 px high, has %2").arg(need).arg(l->height()));
    const QFontMetrics fm(l->font());
    const int room = l->contentsRect().width() - 2 * l->margin() - std::max(0, l->indent());
    for (const QString& word : plain.split(QRegularExpression("\\s+"), Qt::SkipEmptyParts))
      if (fm.horizontalAdvance(word) > room + kSlack) {
        add(l, plain, QStringLiteral("the word '%1' is wider than the label").arg(word));
        break;
      }
  }

  void checkButton(const QAbstractButton* b) {
    const QString text = withoutMnemonics(b->text());
    if (text.isEmpty()) return;
    const QFontMetrics fm(b->font());
    if (b->hasHeightForWidth()) {  // wraps its text, as a label with word wrap does
      const int need = b->heightForWidth(b->width());
      if (need > b->height() + kSlack) add(b, text, QStringLiteral("wraps to %1 px high, has %2").arg(need).arg(b->height()));
      return;
    }
    int need = 0;
    if (qobject_cast<const QCheckBox*>(b) || qobject_cast<const QRadioButton*>(b)) {
      need = b->sizeHint().width();  // indicator, spacing and text; no style minimum
    } else {
      const QStyle* st = b->style();
      // As QCommonStyle sizes a push button's contents: the margin once, the frame twice.
      need = fm.horizontalAdvance(text) + st->pixelMetric(QStyle::PM_ButtonMargin, nullptr, b) +
             2 * st->pixelMetric(QStyle::PM_DefaultFrameWidth, nullptr, b);
      if (!b->icon().isNull()) need += b->iconSize().width() + 4;
      if (auto* pb = qobject_cast<const QPushButton*>(b); pb && pb->menu()) need += 12;
    }
    if (b->width() + kSlack < need) add(b, text, QStringLiteral("needs %1 px wide").arg(need));
    else if (b->height() + kSlack < fm.height()) add(b, text, "lower than its text");
  }

  void checkGroupBox(const QGroupBox* g) {
    const QString title = withoutMnemonics(g->title());
    if (title.isEmpty()) return;
    QFont bold = g->font();
    bold.setBold(true);  // Fusion draws group titles bold
    int need = QFontMetrics(bold).horizontalAdvance(title) + 16;
    if (g->isCheckable()) need += g->style()->pixelMetric(QStyle::PM_IndicatorWidth, nullptr, g) + 6;
    if (g->width() + kSlack < need) add(g, title, QStringLiteral("title needs %1 px wide").arg(need));
  }

  void checkCombo(const QComboBox* c) {
    const QString text = c->currentText();
    if (text.isEmpty() || c->isEditable()) return;
    QStyleOptionComboBox opt;
    opt.initFrom(c);
    opt.editable = false;
    opt.frame = c->hasFrame();
    opt.currentText = text;
    opt.subControls = QStyle::SC_All;
    const QRect field = c->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, c);
    int need = QFontMetrics(c->font()).horizontalAdvance(text) + 2;
    if (!c->itemIcon(c->currentIndex()).isNull()) need += c->iconSize().width() + 4;
    if (field.width() + kSlack < need) add(c, text, QStringLiteral("shows %1 of %2 px").arg(field.width()).arg(need));
  }

  void checkSpinBox(const QAbstractSpinBox* s) {
    const QString text = s->text();
    const auto* edit = s->findChild<const QLineEdit*>();
    if (text.isEmpty() || !edit) return;
    const int room = edit->contentsRect().width() - edit->textMargins().left() - edit->textMargins().right() - 4;
    const int need = QFontMetrics(edit->font()).horizontalAdvance(text);
    if (room + kSlack < need) add(s, text, QStringLiteral("shows %1 of %2 px").arg(room).arg(need));
  }

  void checkProgress(const QProgressBar* p) {
    if (!p->isTextVisible()) return;
    const QString text = p->text();
    const int need = QFontMetrics(p->font()).horizontalAdvance(text) + 8;
    if (p->width() + kSlack < need) add(p, text, QStringLiteral("needs %1 px wide").arg(need));
  }

  void checkTable(const QTableView* t) {
    const QAbstractItemModel* m = t->model();
    if (!m) return;
    const QHeaderView* header = t->horizontalHeader();
    const QFontMetrics hfm(header->font());
    for (int c = 0; c < m->columnCount(); ++c) {
      if (t->isColumnHidden(c)) continue;
      const QString title = m->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
      const int width = header->sectionSize(c);
      if (header->isVisible() && !title.isEmpty() && width + kSlack < hfm.horizontalAdvance(title) + 8)
        add(t, title, QStringLiteral("header section %1 is %2 px wide").arg(c).arg(width));
      for (int r = 0; r < m->rowCount(); ++r) {
        const QModelIndex i = m->index(r, c);
        const QString text = i.data(Qt::DisplayRole).toString();
        if (text.isEmpty()) continue;
        const QVariant f = i.data(Qt::FontRole);
        const QFontMetrics fm(f.isValid() ? f.value<QFont>() : t->font());
        const bool whole = width + kSlack >= fm.horizontalAdvance(text) + 8;
        if (!whole && i.data(Qt::ToolTipRole).toString() != text)
          add(t, text, QStringLiteral("cell (%1, %2) is %3 px wide, no tooltip").arg(r).arg(c).arg(width));
      }
    }
  }

  void checkList(const QListView* l) {
    const QAbstractItemModel* m = l->model();
    if (!m || l->horizontalScrollBar()->isVisible()) return;
    const int room = l->viewport()->width();
    const QFontMetrics fm(l->font());
    for (int r = 0; r < m->rowCount(); ++r) {
      const QModelIndex i = m->index(r, l->modelColumn());
      const QString text = i.data(Qt::DisplayRole).toString();
      if (text.isEmpty() || room + kSlack >= fm.horizontalAdvance(text) + 8) continue;
      if (i.data(Qt::ToolTipRole).toString() != text)
        add(l, text, QStringLiteral("list row %1 is elided in %2 px, no tooltip").arg(r).arg(room));
    }
  }

  void checkTabBar(const QTabBar* t) {
    const QFontMetrics fm(t->font());
    for (int i = 0; i < t->count(); ++i) {
      const QRect r = t->tabRect(i);
      if (!t->isTabVisible(i) || !t->rect().contains(r)) continue;  // scrolled out: the arrows reach it
      const QString text = withoutMnemonics(t->tabText(i));
      const int room = r.width() - t->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, t) / 2;
      if (room + kSlack < fm.horizontalAdvance(text)) add(t, text, QStringLiteral("tab %1 is %2 px wide").arg(i).arg(r.width()));
    }
  }

  void checkDock(const QDockWidget* d) {
    if (d->titleBarWidget() || d->windowTitle().isEmpty()) return;
    int right = d->width();
    for (const QAbstractButton* b : d->findChildren<const QAbstractButton*>(Qt::FindDirectChildrenOnly))
      if (b->isVisible()) right = std::min(right, b->x());
    const int margin = d->style()->pixelMetric(QStyle::PM_DockWidgetTitleMargin, nullptr, d);
    const int room = right - 2 * margin - 2;
    const int need = QFontMetrics(d->font()).horizontalAdvance(d->windowTitle());
    if (room + kSlack < need) add(d, d->windowTitle(), QStringLiteral("title has %1 of %2 px").arg(room).arg(need));
  }

  void checkMenuBar(const QMenuBar* bar) {
    for (QAction* a : bar->actions()) {
      if (!a->isVisible() || a->isSeparator()) continue;
      const QRect r = bar->actionGeometry(a);
      if (r.isEmpty() || !bar->rect().contains(r))
        add(bar, withoutMnemonics(a->text()), "menu moved into the overflow button");
    }
  }

  /// Cut by a parent (the window included), where no scroll bar reaches the rest.
  void checkContained(const QWidget* w, const QString& text) {
    const QRect own(w->mapTo(window, QPoint(0, 0)), w->size());
    for (const QWidget* p = w->parentWidget(); p; p = p->isWindow() ? nullptr : p->parentWidget()) {
      const QRect area(p->mapTo(window, QPoint(0, 0)), p->size());
      const QRect shown = own & area;
      if (shown == own) continue;
      const bool cutX = own.left() < area.left() || own.right() > area.right();
      const bool cutY = own.top() < area.top() || own.bottom() > area.bottom();
      if (const auto* sa = p->parentWidget() ? qobject_cast<const QAbstractScrollArea*>(p->parentWidget()) : nullptr;
          sa && sa->viewport() == p) {
        const bool scrollX = !cutX || sa->horizontalScrollBar()->isVisible();
        const bool scrollY = !cutY || sa->verticalScrollBar()->isVisible();
        if (scrollX && scrollY) return;  // the scroll area shows the rest
      }
      add(w, text,
          QStringLiteral("cut by %1: %2x%3 of %4x%5 shown")
              .arg(describeWidget(p))
              .arg(shown.width())
              .arg(shown.height())
              .arg(own.width())
              .arg(own.height()));
      return;
    }
  }

  void visit(const QWidget* w) {
    if (auto* l = qobject_cast<const QLabel*>(w)) checkLabel(l);
    else if (auto* b = qobject_cast<const QAbstractButton*>(w)) {
      if (!qobject_cast<const QToolButton*>(b) || !b->text().isEmpty()) checkButton(b);
    } else if (auto* g = qobject_cast<const QGroupBox*>(w)) checkGroupBox(g);
    else if (auto* c = qobject_cast<const QComboBox*>(w)) checkCombo(c);
    else if (auto* s = qobject_cast<const QAbstractSpinBox*>(w)) checkSpinBox(s);
    else if (auto* p = qobject_cast<const QProgressBar*>(w)) checkProgress(p);
    else if (auto* t = qobject_cast<const QTableView*>(w)) checkTable(t);
    else if (auto* lv = qobject_cast<const QListView*>(w)) checkList(lv);
    else if (auto* tb = qobject_cast<const QTabBar*>(w)) checkTabBar(tb);
    else if (auto* d = qobject_cast<const QDockWidget*>(w)) checkDock(d);
    else if (auto* mb = qobject_cast<const QMenuBar*>(w)) checkMenuBar(mb);

    const bool own = isPipescopeWidget(w);
    if (own) {
      QSize min = w->minimumSizeHint();
      // A leaf that wraps needs its height for its width; a layout's heightForWidth is only its preference.
      if (w->hasHeightForWidth() && !w->layout()) min.setHeight(std::max(min.height(), w->heightForWidth(w->width())));
      if (min.isValid() && (w->width() + kSlack < min.width() || w->height() + kSlack < min.height()))
        add(w, {}, QStringLiteral("smaller than its minimum %1x%2").arg(min.width()).arg(min.height()));
    }
    const QString text = shownText(w);
    const auto* tabs = qobject_cast<const QTabBar*>(w);
    if (!text.isEmpty() || own || qobject_cast<const QTableView*>(w) || (tabs && tabs->count() > 0))
      checkContained(w, text);
  }
};

}  // namespace

namespace {

/// Docks in a tab group whose tab is not the current one: QMainWindow keeps them
/// visible but parks them outside the window.
QList<const QWidget*> unselectedTabs(const QWidget* window) {
  QList<const QWidget*> out;
  const auto* main = qobject_cast<const QMainWindow*>(window);
  if (!main) return out;
  for (const QDockWidget* d : main->findChildren<const QDockWidget*>())
    if (!main->tabifiedDockWidgets(const_cast<QDockWidget*>(d)).isEmpty() && !d->geometry().intersects(main->rect()))
      out << d;
  return out;
}

bool inside(const QWidget* w, const QList<const QWidget*>& parents) {
  for (const QWidget* p = w; p; p = p->parentWidget())
    if (parents.contains(p)) return true;
  return false;
}

}  // namespace

std::vector<ClippedFinding> findClippedText(const QWidget* window) {
  Finder f{window, {}};
  const auto parked = unselectedTabs(window);
  for (const QWidget* w : window->findChildren<const QWidget*>()) {
    if (!w->isVisible() || w->window() != window || inside(w, parked)) continue;
    f.visit(w);
  }
  return f.found;
}

QString describe(const std::vector<ClippedFinding>& found) {
  QStringList lines;
  for (const ClippedFinding& c : found)
    lines << QStringLiteral("  %1: \"%2\": %3").arg(c.widget, c.text.left(80).replace('\n', ' '), c.why);
  return lines.join('\n');
}

}  // namespace pipescope::ui::testing
