#include "metrics/IdealBound.h"

#include <algorithm>

namespace pipescope {

std::string_view toString(CriticalResource r) {
  switch (r) {
    case CriticalResource::H2DEngine: return "the H2D copy engine";
    case CriticalResource::D2HEngine: return "the D2H copy engine";
    case CriticalResource::CopyEngine: return "the copy engine";
    case CriticalResource::ComputeEngine: return "the compute engine";
    case CriticalResource::Host: return "the host";
    case CriticalResource::None: return "nothing";
  }
  return "?";
}

IdealBound computeIdealBound(const StageTimes& work, const StageTimes& fill, std::int64_t batches, int copyEngines) {
  IdealBound bound;
  const double hostIn = work.preprocessNs + work.apiNs;  // before a batch's GPU stages: preprocess, then issue
  const double hostOut = work.postprocessNs;
  bound.hostPerBatchNs = hostIn + hostOut;
  if (batches <= 0) return bound;
  const double n = double(batches);
  // One batch's stages: what must run before a resource's first work and after its last.
  const double pre = fill.preprocessNs, h = fill.h2dNs, k = fill.kernelNs, d = fill.d2hNs, post = fill.postprocessNs;

  struct Candidate {
    CriticalResource resource;
    double workPerBatch;
    double ns;
  };
  // In the order ties are broken: the GPU side first, the compute engine before the copies.
  Candidate candidates[4] = {{CriticalResource::ComputeEngine, work.kernelNs, n * work.kernelNs + pre + h + d + post}};
  int count = 1;
  if (copyEngines <= 1) {
    const double copies = work.h2dNs + work.d2hNs;  // both directions take turns on the one engine
    candidates[count++] = {CriticalResource::CopyEngine, copies, n * copies + pre + k + post};
  } else {
    candidates[count++] = {CriticalResource::H2DEngine, work.h2dNs, n * work.h2dNs + pre + k + d + post};
    candidates[count++] = {CriticalResource::D2HEngine, work.d2hNs, n * work.d2hNs + pre + h + k + post};
  }
  // The host: all of its work, and at least every batch's preprocessing and issue before
  // the last batch's GPU stages, which its postprocessing follows.
  candidates[count++] = {CriticalResource::Host, bound.hostPerBatchNs,
                         std::max(n * bound.hostPerBatchNs, n * hostIn + h + k + d + post)};

  for (int i = 0; i < count; ++i) {
    const Candidate& c = candidates[i];
    if (c.workPerBatch > 0 && c.ns > bound.ns) {
      bound.ns = c.ns;
      bound.critical = c.resource;
    }
  }
  return bound;
}

}  // namespace pipescope
