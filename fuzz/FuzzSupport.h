#pragma once
// What every fuzz target checks: an importer may reject input only with
// TraceFileError; any other exception, crash, leak or sanitizer report is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "io/TraceFileError.h"

namespace pipescope::fuzz {

template <typename F>
int run(const std::uint8_t* data, std::size_t size, F&& load) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    load(std::move(bytes));
  } catch (const TraceFileError& e) {
    // Expected for bad input: the message must say something.
    if (std::string(e.what()).empty()) std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "importer threw a non-TraceFileError: %s\n", e.what());
    std::abort();
  }
  return 0;
}

}  // namespace pipescope::fuzz
