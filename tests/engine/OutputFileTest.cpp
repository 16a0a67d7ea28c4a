// OutputFile: every output respects what is at its path (issue 16). Each case builds
// the special file in a scratch folder: a FIFO is written into (not replaced), a
// symbolic link keeps pointing at its target (which gets the new content), a file
// keeps its mode, a write error on a character device (/dev/full) is reported and
// the device stays, a folder or block device is refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <thread>

#include "TraceFileTestSupport.h"
#include "io/NativeFormat.h"
#include "io/OutputFile.h"
#include "io/TraceFileError.h"

namespace pipescope {
namespace {

using filetest::readText;
using filetest::ScratchDir;
using filetest::writeText;
namespace fs = std::filesystem;

void writeHello(const std::string& path, const std::string& text = "hello\n") {
  writeOutputFile(path, [&](std::ostream& out) { out << text; });
}

mode_t modeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

TEST(OutputFile, NewFileIsCreatedAndNoTemporaryIsLeft) {
  ScratchDir dir;
  writeHello(dir.file("new.csv"));
  EXPECT_EQ(readText(dir.file("new.csv")), "hello\n");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(OutputFile, RewriteKeepsTheFileMode) {
  ScratchDir dir;
  const std::string path = dir.file("private.pipescope");
  writeText(path, "old");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  writeHello(path);
  EXPECT_EQ(readText(path), "hello\n");
  EXPECT_EQ(modeOf(path) & 07777, mode_t(0640));
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  saveNativeTrace(*filetest::makeSimTrace(2), path);
  EXPECT_EQ(modeOf(path) & 07777, mode_t(0600));
}

TEST(OutputFile, SymbolicLinkStaysAndItsTargetIsReplaced) {
  ScratchDir dir;
  fs::create_directories(dir.path() / "real");
  const std::string target = dir.file("real/trace.csv");
  writeText(target, "old");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  const std::string link = dir.file("link.csv");
  fs::create_symlink("real/trace.csv", link);  // relative, as users make them
  writeHello(link);
  EXPECT_TRUE(S_ISLNK(modeOf(link)));
  EXPECT_EQ(fs::read_symlink(link), fs::path("real/trace.csv"));
  EXPECT_EQ(readText(target), "hello\n");
  EXPECT_EQ(modeOf(target) & 07777, mode_t(0640));
}

TEST(OutputFile, DanglingSymbolicLinkCreatesItsTarget) {
  ScratchDir dir;
  const std::string link = dir.file("link.csv");
  fs::create_symlink(dir.file("later.csv"), link);
  writeHello(link);
  EXPECT_TRUE(S_ISLNK(modeOf(link)));
  EXPECT_EQ(readText(dir.file("later.csv")), "hello\n");
}

TEST(OutputFile, FifoIsWrittenThroughNotReplaced) {
  ScratchDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return readText(fifo); });
  writeHello(fifo, std::string(300'000, 'x'));  // more than a pipe buffer: truly streamed
  EXPECT_EQ(reader.get().size(), 300'000u);
  EXPECT_TRUE(S_ISFIFO(modeOf(fifo)));
}

TEST(OutputFile, DevNullStaysACharacterDevice) {
  if (::access("/dev/null", W_OK) != 0) GTEST_SKIP() << "/dev/null not writable here";
  writeHello("/dev/null");
  EXPECT_TRUE(S_ISCHR(modeOf("/dev/null")));
}

TEST(OutputFile, DiskFullOnDevFullIsAnErrorAndTheDeviceStays) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full not writable here";
  try {
    writeHello("/dev/full", std::string(200'000, 'x'));
    FAIL() << "writing /dev/full must fail";
  } catch (const TraceFileError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("/dev/full"), std::string::npos) << m;
    EXPECT_NE(m.find("disk is full"), std::string::npos) << m;
  }
  EXPECT_TRUE(S_ISCHR(modeOf("/dev/full")));
}

TEST(OutputFile, FolderIsRefusedWithAClearMessage) {
  ScratchDir dir;
  try {
    writeHello(dir.path().string());
    FAIL() << "a folder must be refused";
  } catch (const TraceFileError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a folder"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir.path()));
}

TEST(OutputFile, BlockDeviceIsRefused) {
  std::string device;
  for (const char* d : {"/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/ram0"}) {
    struct stat st {};
    if (::stat(d, &st) == 0 && S_ISBLK(st.st_mode)) {
      device = d;
      break;
    }
  }
  if (device.empty()) GTEST_SKIP() << "no block device node to try here";
  try {
    writeHello(device);
    FAIL() << "a block device must be refused";
  } catch (const TraceFileError& e) {
    EXPECT_NE(std::string(e.what()).find("block device"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(S_ISBLK(modeOf(device)));
}

TEST(OutputFile, MissingFolderNamesTheFileAndSaysWhatToCheck) {
  try {
    writeHello("/nonexistent-folder-pipescope/x.csv");
    FAIL();
  } catch (const TraceFileError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("/nonexistent-folder-pipescope/x.csv"), std::string::npos) << m;
    EXPECT_NE(m.find("folder exists"), std::string::npos) << m;
  }
}

TEST(OutputFile, PublishThenAppendStreamsIntoTheTarget) {
  ScratchDir dir;
  const std::string path = dir.file("growing.bin");
  writeText(path, "old");
  OutputFile out(path);
  out.stream() << "first ";
  EXPECT_EQ(readText(path), "old");  // not yet published: the old file stands
  out.publish();
  EXPECT_EQ(readText(path), "first ");
  out.stream() << "second";
  out.flush(true);
  EXPECT_EQ(readText(path), "first second");
  out.commit();
  EXPECT_EQ(readText(path), "first second");
}

TEST(OutputFile, DescriptorNamesAreWrittenThrough) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  writeHello("/dev/fd/" + std::to_string(fds[1]), "through the pipe");
  ::close(fds[1]);
  char buf[64] = {};
  const ssize_t n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  EXPECT_EQ(std::string(buf, std::size_t(std::max<ssize_t>(n, 0))), "through the pipe");
}

}  // namespace
}  // namespace pipescope
