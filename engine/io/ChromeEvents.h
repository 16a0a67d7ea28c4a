#pragma once
// The events of a Chrome trace file that pipescope uses, flattened while parsing so
// a large file never exists as a JSON tree: timed slices (X, or B/E pairs), flow
// endpoints, thread and process names. ChromeTraceImport turns them into a Trace.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipescope {

struct ChromeSlice {
  std::int64_t ts = 0;       ///< ns, in the file's time base
  std::int64_t dur = 0;      ///< ns, >= 0
  std::uint32_t thread = 0;  ///< index into ChromeEvents::threads
  std::uint32_t name = 0;    ///< index into ChromeEvents::strings
  std::uint32_t cat = 0;
  std::uint32_t eventIndex = 0;   ///< position in traceEvents, for messages
  std::int64_t stream = -1;       ///< args.stream
  std::int64_t bytes = -1;        ///< args.bytes
  std::int64_t correlation = -1;  ///< args.correlation
  // Fields of pipescope's own export (args), so its round trip is lossless.
  std::int64_t streamWait = 0;   ///< args["stream wait (ns)"]
  std::int64_t engineWait = 0;   ///< args["engine wait (ns)"]
  std::int32_t batch = -1;       ///< args.batch
  std::int32_t engineLane = -1;  ///< args.engine_lane
  std::int8_t kind = -1;         ///< args.kind as OpKind, -1 when absent
  std::uint8_t flags = 0;        ///< args.flags
  bool mirror = false;           ///< args.mirror: a copy of an op shown on its engine lane
  // PyTorch record_shapes: the shape of the op's first input (args["Input Dims"][0]).
  std::int64_t inputFirstDim = -1;  ///< its first dimension (the batch, for most layers)
  std::uint8_t inputRank = 0;       ///< its number of dimensions (0: not recorded)
};

struct ChromeThread {
  std::string pid;  ///< as written (number or string)
  std::string tid;
  std::string name;  ///< from thread_name metadata, else empty
  std::int64_t sortIndex = 0;
  bool hasSortIndex = false;
  // pipescope export: the lane this thread shows (thread_name args)
  std::int32_t pipescopeLane = -1;
  std::string laneKind;
  std::int64_t laneIndex = 0;
  std::optional<std::int64_t> laneDevice;  ///< absent in exports from before several GPUs
};

struct ChromeProcess {
  std::string pid;
  std::string name;
  std::string labels;
  std::int64_t sortIndex = 0;
};

struct ChromeFlow {
  std::string id;
  std::uint32_t thread = 0;
  std::int64_t ts = 0;
  char phase = 's';            ///< 's' start, 'f' finish, 't' step
  bool bindEnclosing = false;  ///< bp == "e": binds to the enclosing slice
};

struct ChromeEvents {
  std::string source;  ///< file name for messages
  std::vector<ChromeSlice> slices;
  std::vector<ChromeThread> threads;
  std::vector<ChromeProcess> processes;
  std::vector<std::string> strings{std::string()};
  std::vector<ChromeFlow> flows;
  nlohmann::json deviceProperties;  ///< PyTorch profiler: top-level deviceProperties
  nlohmann::json pipescope;         ///< pipescope export: otherData.pipescope
  nlohmann::json distributedInfo;   ///< PyTorch profiler of a distributed job: rank, world_size, backend, pg_config
  std::int64_t baseTimeNs = 0;      ///< PyTorch profiler: baseTimeNanoseconds (0 when absent)
  std::uint64_t eventCount = 0;     ///< every element of traceEvents
  std::uint64_t skippedEvents = 0;  ///< events of phases pipescope does not use
};

}  // namespace pipescope
