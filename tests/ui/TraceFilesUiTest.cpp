// File › Open / Save / Export trace and drag-and-drop in the main window, offscreen:
// a saved file opens again with the same content, a dropped file opens, and a corrupt
// file shows a clear error while the window keeps what it showed.
#include <gtest/gtest.h>

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "files/TraceFileActions.h"
#include "io/TraceFiles.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

const QString kFixture = QString(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";

MainWindow::Options noSettings() { return MainWindow::Options{false}; }

bool openAndWait(MainWindow& w, const QString& path) {
  w.traceFiles().openFile(path);
  return w.traceFiles().waitForLoad();
}

}  // namespace

TEST(TraceFilesUi, FileMenuOffersOpenSaveAndEveryExportFormat) {
  MainWindow w(noSettings());
  QMenu* file = nullptr;
  for (QAction* a : w.menuBar()->actions())
    if (a->text() == "&File") file = a->menu();
  ASSERT_TRUE(file);
  QStringList texts;
  QMenu* exportTrace = nullptr;
  for (QAction* a : file->actions()) {
    texts << a->text();
    if (a->text() == "Export &trace") exportTrace = a->menu();
  }
  EXPECT_TRUE(texts.contains("&Open trace…")) << texts.join("|").toStdString();
  EXPECT_TRUE(texts.contains("&Save trace…"));
  ASSERT_TRUE(exportTrace);
  EXPECT_EQ(exportTrace->actions().size(), 4);
}

TEST(TraceFilesUi, SavedTraceOpensAgainIdentically) {
  QTemporaryDir dir;
  MainWindow a(noSettings());
  a.show();
  ASSERT_TRUE(openAndWait(a, kFixture)) << a.lastError().toStdString();
  ASSERT_TRUE(a.currentTrace());
  EXPECT_TRUE(a.windowTitle().contains("pytorch-profiler-resnet18"));
  const QString saved = dir.filePath("saved.pipescope");
  QString error;
  ASSERT_TRUE(a.traceFiles().save(saved, TraceFileFormat::Native, &error)) << error.toStdString();
  for (auto f : {TraceFileFormat::ChromeJson, TraceFileFormat::OpsCsv, TraceFileFormat::MetricsCsv}) {
    const QString p =
        dir.filePath(QString("export-%1.%2").arg(int(f)).arg(f == TraceFileFormat::ChromeJson ? "json" : "csv"));
    EXPECT_TRUE(a.traceFiles().save(p, f, &error)) << error.toStdString();
    EXPECT_GT(QFile(p).size(), 1000);
  }

  MainWindow b(noSettings());
  b.show();
  ASSERT_TRUE(openAndWait(b, saved)) << b.lastError().toStdString();
  const auto ta = a.currentTrace(), tb = b.currentTrace();
  EXPECT_EQ(ta->lanes(), tb->lanes());
  ASSERT_EQ(ta->ops().publishedCount(), tb->ops().publishedCount());
  const TraceView va = ta->ops().snapshot(), vb = tb->ops().snapshot();
  for (std::uint64_t i = 0; i < va.size(); ++i) ASSERT_EQ(va[i], vb[i]) << i;
  EXPECT_TRUE(b.lastError().isEmpty());
}

TEST(TraceFilesUi, DroppedFileOpens) {
  MainWindow w(noSettings());
  w.show();
  QSignalSpy opened(&w.traceFiles(), &files::TraceFileActions::traceOpened);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(kFixture)});
  const QPoint at(w.width() / 2, w.height() / 2);
  QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&w, &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&w, &drop);
  EXPECT_TRUE(drop.isAccepted());
  ASSERT_TRUE(pipescope::ui::testing::waitFor([&] { return opened.count() == 1; })) << w.lastError().toStdString();
  ASSERT_TRUE(w.traceFiles().waitForLoad());
  ASSERT_TRUE(w.currentTrace());
  EXPECT_EQ(w.currentTrace()->ops().publishedCount(), 4840u);
}

TEST(TraceFilesUi, DropOfSomethingElseIsRefused) {
  MainWindow w(noSettings());
  QMimeData mime;
  mime.setText("not a file");
  QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  enter.setAccepted(false);
  QCoreApplication::sendEvent(&w, &enter);
  EXPECT_FALSE(enter.isAccepted());
}

TEST(TraceFilesUi, CorruptFileShowsClearErrorAndKeepsTheCurrentTrace) {
  QTemporaryDir dir;
  MainWindow w(noSettings());
  w.show();
  ASSERT_TRUE(openAndWait(w, kFixture));
  const auto before = w.currentTrace();
  const QString bad = dir.filePath("corrupt.json");
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"traceEvents":[{"ph":"X","ts":10,"dur":5},{"ph":"X","ts":1,"dur":-3}]})");
  f.close();
  QSignalSpy failed(&w.traceFiles(), &files::TraceFileActions::openFailed);
  EXPECT_FALSE(openAndWait(w, bad));
  ASSERT_EQ(failed.count(), 1);
  const QString error = w.lastError();
  EXPECT_TRUE(error.contains("corrupt.json")) << error.toStdString();
  EXPECT_TRUE(error.contains("event 1")) << error.toStdString();
  EXPECT_TRUE(error.contains("negative duration")) << error.toStdString();
  EXPECT_EQ(w.currentTrace(), before) << "a failed open keeps what the window showed";
}

TEST(TraceFilesUi, CancelStopsTheLoadAndKeepsTheWindowAsItWas) {
  MainWindow w(noSettings());
  w.show();
  QSignalSpy opened(&w.traceFiles(), &files::TraceFileActions::traceOpened);
  QSignalSpy failed(&w.traceFiles(), &files::TraceFileActions::openFailed);
  w.traceFiles().openFile(kFixture);  // several MiB of JSON: the reader checks the flag every 1 MiB
  w.traceFiles().cancelLoad();
  EXPECT_FALSE(w.traceFiles().waitForLoad());
  EXPECT_FALSE(w.traceFiles().loading());
  EXPECT_EQ(opened.count(), 0);
  EXPECT_EQ(failed.count(), 0) << "cancelling is not an error";
  EXPECT_FALSE(w.currentTrace());
  EXPECT_TRUE(w.lastError().isEmpty());
}
