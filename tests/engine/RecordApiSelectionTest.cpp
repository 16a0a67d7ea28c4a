// Which CUDA API calls the injection asks CUPTI to record (record/ApiSelection.h):
// CUPTI's own callback names, as cupti_runtime_cbid.h and cupti_driver_cbid.h of
// CUDA 13.0 spell them.
#include <gtest/gtest.h>

#include "record/ApiSelection.h"

namespace pipescope::record {
namespace {

TEST(RecordApiSelection, BaseNameDropsCuptiSuffixes) {
  EXPECT_EQ(apiBaseName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(apiBaseName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(apiBaseName("cuMemcpyHtoD_v2_ptds"), "cuMemcpyHtoD");
  EXPECT_EQ(apiBaseName("__cudaLaunchKernel_ptsz_v13000"), "cudaLaunchKernel");
  EXPECT_EQ(apiBaseName("cuLaunchKernel"), "cuLaunchKernel");
}

TEST(RecordApiSelection, EveryWayToPutWorkOnTheGpuIsRecorded) {
  for (const char* name : {"cudaLaunchKernel_v7000",
                           "cudaLaunchKernel_ptsz_v7000",
                           "__cudaLaunchKernel_v13000",
                           "cudaLaunchKernelExC_v11060",
                           "cudaLaunchCooperativeKernel_v9000",
                           "cudaLaunchHostFunc_v10000",
                           "cudaGraphLaunch_v10000",
                           "cudaGraphUpload_ptsz_v10000",
                           "cudaMemcpy_v3020",
                           "cudaMemcpyAsync_ptsz_v7000",
                           "cudaMemcpy2DAsync_v3020",
                           "cudaMemcpyPeerAsync_v4000",
                           "cudaMemcpyBatchAsync_v13000",
                           "cudaMemsetAsync_v3020",
                           "cudaMemPrefetchAsync_v12020",
                           "cuLaunchKernel",
                           "cuLaunchKernel_ptsz",
                           "cuLaunchKernelEx",
                           "cuGraphLaunch_ptsz",
                           "cuMemcpyHtoDAsync_v2",
                           "cuMemcpyDtoH_v2",
                           "cuMemcpyBatchAsync_v2",
                           "cuMemsetD32Async",
                           "cuStreamWriteValue32_v2",
                           "cuStreamBatchMemOp_v2",
                           "cuStreamAddCallback",
                           "cuMemBatchDecompressAsync"})
    EXPECT_TRUE(recordsApiCall(name)) << name;
}

TEST(RecordApiSelection, WaitsAndMemoryManagementAreRecorded) {
  for (const char* name : {"cudaStreamSynchronize_v3020",
                           "cudaDeviceSynchronize_v3020",
                           "cudaEventSynchronize_v3020",
                           "cudaStreamWaitEvent_ptsz_v7000",
                           "cudaEventRecord_v3020",
                           "cudaEventRecordWithFlags_v11010",
                           "cuCtxSynchronize",
                           "cuStreamSynchronize_ptsz",
                           "cuCtxWaitEvent",
                           "cudaMalloc_v3020",
                           "cudaFree_v3020",
                           "cudaMallocHost_v3020",
                           "cudaHostAlloc_v3020",
                           "cudaHostRegister_v4000",
                           "cudaMallocAsync_v11020",
                           "cudaFreeAsync_ptsz_v11020",
                           "cuMemAlloc_v2",
                           "cuMemFree_v2",
                           "cuMemCreate",
                           "cuMemMap",
                           "cuMemUnmap",
                           "cuMemRelease",
                           "cuModuleLoadData",
                           "cuLibraryLoadData",
                           "cuCtxCreate_v4",
                           "cuDevicePrimaryCtxRetain",
                           "cudaGraphInstantiate_v12000"})
    EXPECT_TRUE(recordsApiCall(name)) << name;
}

TEST(RecordApiSelection, FrequentCallsThatNeitherWorkNorWaitAreNot) {
  // What a PyTorch step calls around each launch, and what cuBLAS, cuDNN and Triton ask
  // the driver.
  for (const char* name : {"cudaGetDevice_v3020",
                           "cudaSetDevice_v3020",
                           "cudaGetLastError_v3020",
                           "cudaPeekAtLastError_v3020",
                           "cudaStreamIsCapturing_v10000",
                           "cudaStreamGetCaptureInfo_v12030",
                           "cudaThreadExchangeStreamCaptureMode_v10010",
                           "cudaEventQuery_v3020",
                           "cudaStreamQuery_ptsz_v7000",
                           "cudaEventCreateWithFlags_v3020",
                           "cudaEventDestroy_v3020",
                           "cudaPointerGetAttributes_v4000",
                           "cudaFuncGetAttributes_v3020",
                           "cudaFuncSetAttribute_v9000",
                           "cudaDeviceGetAttribute_v5000",
                           "cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6000",
                           "cudaGetDeviceCount_v3020",
                           "cudaMemGetInfo_v3020",
                           "cudaGetDriverEntryPointByVersion_v12050",
                           "cuCtxGetCurrent",
                           "cuCtxSetCurrent",
                           "cuGetProcAddress_v2",
                           "cuFuncGetAttribute",
                           "cuLibraryGetKernel",
                           "cuKernelGetFunction",
                           "cuModuleGetFunction",
                           "cuPointerGetAttribute",
                           "cuDeviceGetAttribute",
                           "cuStreamIsCapturing_ptsz",
                           "cuMemGetAllocationGranularity",
                           "cuOccupancyMaxPotentialBlockSize",
                           "cudaGraphAddMemcpyNode_v10000",
                           "cudaGraphExecMemsetNodeSetParams_v10020",
                           "cuGraphAddKernelNode_v2"})
    EXPECT_FALSE(recordsApiCall(name)) << name;
}

TEST(RecordApiDomains, SettingNarrowsTheDomainsAndABadValueKeepsBoth) {
  for (const char* v : {static_cast<const char*>(nullptr), "", "all", "both"}) {
    const ApiDomains d = apiDomainsFromSetting(v);
    EXPECT_TRUE(d.runtime && d.driver && d.error.empty()) << (v ? v : "(unset)");
  }
  const ApiDomains runtime = apiDomainsFromSetting("runtime");
  EXPECT_TRUE(runtime.runtime);
  EXPECT_FALSE(runtime.driver);
  const ApiDomains driver = apiDomainsFromSetting("driver");
  EXPECT_FALSE(driver.runtime);
  EXPECT_TRUE(driver.driver);
  const ApiDomains none = apiDomainsFromSetting("none");
  EXPECT_FALSE(none.runtime || none.driver);
  const ApiDomains bad = apiDomainsFromSetting("Runtime ");
  EXPECT_TRUE(bad.runtime && bad.driver);
  EXPECT_NE(bad.error.find("PIPESCOPE_RECORD_API='Runtime '"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("all, runtime, driver, none"), std::string::npos) << bad.error;
}

}  // namespace
}  // namespace pipescope::record
