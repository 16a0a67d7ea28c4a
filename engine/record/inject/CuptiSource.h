#pragma once
// CUPTI inside the recorded process: enables the activity records a recording needs
// (kernels, memcpy with their host memory kind, memset, synchronisation, runtime and
// driver API calls, NVTX ranges, devices), takes CUPTI's filled buffers on whatever
// thread CUPTI hands them over (only queued there: the program's threads must not
// wait), and turns them into plain activity records (record/ActivityRecords.h) for
// the translator, on the injection's own thread.
//
// Times: a timestamp callback makes CUPTI stamp every record with CLOCK_MONOTONIC,
// the clock the recorder's trace counts from (std::chrono::steady_clock on Linux).
// Where CUPTI cannot take one, its own clock is tied to CLOCK_MONOTONIC by reading
// both back to back (the pair with the shortest bracket of three), again each round.
//
// API calls: only those a recording needs (record/ApiSelection.h), chosen call by call
// where CUPTI can (every call where it cannot).
//
// Host threads: records carry the system's thread id (cuptiSetThreadIdType), and the
// injection's own thread reads a new thread's name from /proc. Where CUPTI cannot give
// system ids, a callback on the program's API calls names them instead: the first call
// a thread makes gives its name and system id with that call's correlation id, and the
// callback is switched off once no new thread has appeared for a while.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "record/ActivityRecords.h"
#include "record/ActivityTranslator.h"
#include "record/WireFormat.h"

namespace pipescope::inject {

class CuptiSource {
 public:
  static CuptiSource& instance();

  /// Sets CUPTI up; false when it cannot record at all (`whyNot`: CUPTI held by another
  /// profiler, ...). Kinds it could not enable become warnings in `notes`.
  bool start(std::string& whyNot, std::vector<wire::Note>& notes);
  /// Disables every activity kind and callback (the recording is over or gone).
  void stop();
  /// Asks CUPTI to hand over its buffers (forced: with the records still being written).
  void flush(bool forced);
  /// Moves what CUPTI delivered since the last call into `translator`.
  void drainInto(record::ActivityTranslator& translator);
  /// Turns the thread-naming callback off once no thread has appeared for a while.
  void settleThreadNaming();

  std::uint64_t droppedRecords() const { return dropped_.load(); }
  std::uint32_t version() const { return version_; }
  std::string timing() const;

  // CUPTI's callbacks (static functions forward here).
  std::uint8_t* takeBuffer();
  void giveBack(std::uint8_t* buffer);
  void bufferCompleted(std::uint8_t* buffer, std::size_t validSize, std::uint64_t dropped);
  void threadSeen(std::uint32_t correlation);
  void contextEnding();

 private:
  CuptiSource() = default;
  void convert(const std::uint8_t* buffer, std::size_t validSize, record::ActivityTranslator& t);
  std::int64_t toMonotonic(std::uint64_t cuptiNs) const;
  void calibrate();
  void enableApiRecords(std::vector<wire::Note>& notes);
  void disableApiRecords();
  /// With system thread ids: a thread's first record names it.
  void nameThread(std::uint32_t threadId, record::ActivityTranslator& t);
  const std::string& apiName(bool driver, std::uint32_t cbid);
  const std::string& kernelName(const char* mangled);

  std::uint32_t version_ = 0;
  bool timestampCallback_ = false;
  bool systemThreadIds_ = false;
  bool allApiCalls_ = false;
  std::vector<std::uint32_t> runtimeCalls_, driverCalls_;  // callback ids whose records are enabled
  std::unordered_set<std::uint32_t> namedThreads_;        // the injection's thread only
  std::atomic<std::int64_t> offsetNs_{0};  // monotonic - CUPTI, without the timestamp callback
  void* subscriber_ = nullptr;
  std::atomic<bool> active_{false};
  std::atomic<bool> namingOn_{false};
  std::atomic<std::int64_t> lastNewThreadNs_{0};
  std::mutex spareMutex_;
  std::vector<std::uint8_t*> spare_;  // drained buffers for CUPTI's next requests
  std::mutex queueMutex_;
  std::vector<std::pair<std::uint8_t*, std::size_t>> queue_;
  std::size_t queuedBytes_ = 0;
  std::vector<record::ThreadSighting> sightings_;
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> buffersLost_{0};
  std::unordered_map<std::uint64_t, std::string> apiNames_;  // (driver << 32 | cbid) -> name
  std::unordered_map<const char*, std::string> kernelNames_;  // CUPTI's name string -> demangled
};

/// CLOCK_MONOTONIC in nanoseconds.
std::int64_t monotonicNowNs();

}  // namespace pipescope::inject
