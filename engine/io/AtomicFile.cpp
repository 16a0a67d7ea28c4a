#include "io/AtomicFile.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "io/TraceFileError.h"

namespace pipescope {

namespace {

std::mutex& hookMutex() {
  static std::mutex m;
  return m;
}
std::function<void(const std::string&)>& hook() {
  static std::function<void(const std::string&)> h;
  return h;
}

}  // namespace

void setAtomicWriteFaultHook(std::function<void(const std::string& tempPath)> h) {
  std::lock_guard lock(hookMutex());
  hook() = std::move(h);
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.filename().empty()) throw TraceFileError("cannot write '" + path + "': not a file name");
  static std::atomic<unsigned> counter{0};
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) +
                                                "-" + std::to_string(counter++));
  auto discard = [&] {
    std::error_code ec;
    fs::remove(temp, ec);
  };
  try {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw TraceFileError("cannot write '" + path + "': " + std::strerror(errno) +
                           " (check that the folder exists and is writable)");
    write(out);
    out.flush();
    if (!out) throw TraceFileError("cannot write '" + path + "': " + std::strerror(errno) + " (disk full?)");
    out.close();
    if (!out) throw TraceFileError("cannot write '" + path + "': " + std::strerror(errno) + " (disk full?)");
    std::function<void(const std::string&)> h;
    {
      std::lock_guard lock(hookMutex());
      h = hook();
    }
    if (h) h(temp.string());
  } catch (const TraceFileError&) {
    discard();
    throw;
  } catch (const TraceLoadCancelled&) {
    discard();
    throw;
  } catch (const std::exception& e) {
    discard();
    throw TraceFileError("cannot write '" + path + "': " + e.what());
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    discard();
    throw TraceFileError("cannot write '" + path + "': " + why);
  }
}

}  // namespace pipescope
