// libFuzzer target: the stream a recorded process sends to `pipescope record`, through
// the decoder and into a live trace (record/RecordAssembler), in pieces of the sizes a
// socket might deliver. Damage must end as a message on the process, never as a crash,
// a hang, an exception or a sanitizer report.
#include <cstdlib>
#include <memory>

#include "record/RecordAssembler.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pipescope;
  if (size == 0) return 0;
  // The first byte picks how the rest arrives: in one piece or in pieces of 1..255 bytes.
  const std::size_t piece = data[0] == 0 ? size : data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  auto trace = std::make_shared<Trace>();
  record::RecordAssembler assembler(trace, 0);
  const std::size_t p = assembler.addProcess();
  for (std::size_t at = 0; at < bytes.size(); at += piece)
    if (!assembler.feed(p, bytes.substr(at, piece))) break;
  assembler.close(p);
  assembler.publish();
  const auto& proc = assembler.processes()[p];
  // A stream that did not end with its end message must say why.
  if (!proc.endedCleanly && proc.problem.empty()) std::abort();
  if (trace->ops().publishedCount() != assembler.opsAppended()) std::abort();
  return 0;
}
