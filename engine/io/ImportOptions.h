#pragma once
// What the user tells an importer that the file cannot: which range starts an
// iteration, and how many samples one iteration processes. Native traces ignore it
// (their batches are recorded).
#include <cstdint>

#include "io/IterationDetection.h"

namespace pipescope {

struct ImportOptions {
  IterationOptions iterations;
  std::int64_t batchSize = 0;  ///< samples per iteration; 0: read from input shapes when recorded, else unknown
};

}  // namespace pipescope
