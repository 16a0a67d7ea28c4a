// cuBLAS, CUPTI and the rest of the CUDA backend are loaded only when a command asks
// for CUDA (backend/CudaModule.h): checked from the dynamic loader's own log of every
// object the process mapped. A missing or broken module or library is reported,
// naming it, when CUDA is asked for: `--backend auto` falls back to the simulator,
// `--backend cuda` fails with the message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../LoaderLog.h"
#include "CliProcess.h"

namespace pipescope::testing {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// Runs the CLI with ld.so logging; the loaded files' names.
std::set<std::string> loadedBy(const std::vector<std::string>& args, CliResult* result = nullptr) {
  LoaderLog log(cliTempPath("cuda-loading", "ld"));
  CliResult r;
  {
    ScopedEnvironment env(log.environment());
    r = runCli(args);
  }
  EXPECT_TRUE(log.wroteLog()) << "ld.so wrote no log: the check would prove nothing";
  if (result) *result = r;
  return log.loadedFiles();
}

std::vector<std::string> smallSimRun(const std::string& backend) {
  return {"run", "--backend", backend, "--preset", "naive", "--batches", "4", "--quiet"};
}

TEST(CliCudaLoading, CommandsThatNeverAskForCudaLoadNoCudaLibrary) {
  const std::string converted = cliTempPath("cuda-loading", "converted.json");
  const std::vector<std::vector<std::string>> commands = {
      {"--version"},
      {"--help"},
      {"presets"},
      {"analyze", pytorchFixture()},
      {"convert", pytorchFixture(), converted},
      smallSimRun("sim"),
  };
  for (const auto& args : commands) {
    CliResult r;
    const std::set<std::string> files = loadedBy(args, &r);
    const std::string command = joined(args);
    EXPECT_EQ(r.exitCode, 0) << command << ": " << r.err;
    // Every dynamically linked program loads the C library: its absence means the log was not read.
    EXPECT_TRUE(files.count("libc.so.6")) << command << ": the log lists what was loaded: "
                                          << joined(std::vector<std::string>(files.begin(), files.end()));
    EXPECT_EQ(cudaLibrariesAmong(files), std::vector<std::string>{}) << command;
  }
  std::filesystem::remove(converted);
}

#if PIPESCOPE_HAVE_CUDA

TEST(CliCudaLoading, AskingForCudaLoadsTheModuleAndItsLibraries) {
  // Without a GPU `auto` still loads the module to ask the driver, then falls back.
  CliResult r;
  const std::set<std::string> files = loadedBy(smallSimRun("auto"), &r);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const std::string found = joined(cudaLibrariesAmong(files));
  EXPECT_NE(found.find("libpipescope-cuda.so"), std::string::npos) << found;
  EXPECT_NE(found.find("libcublas.so"), std::string::npos) << found;
  EXPECT_NE(found.find("libcublasLt.so"), std::string::npos) << found;
  EXPECT_NE(found.find("libcupti.so"), std::string::npos) << found;
}

class CliBrokenCudaModule : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = cliTempPath("cuda-loading", "broken");
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string writeGarbage(const std::string& name) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "not a shared library\n";
    return path;
  }

  std::string dir_;
};

TEST_F(CliBrokenCudaModule, AutoFallsBackToTheSimulatorNamingTheModule) {
  const std::string module = writeGarbage("libpipescope-cuda.so");
  ScopedEnvironment env({{"PIPESCOPE_CUDA_MODULE", module}});
  const CliResult r = runCli({"run", "--backend", "auto", "--preset", "naive", "--batches", "4"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("the CUDA backend module " + module + " could not be loaded"), std::string::npos) << all;
  EXPECT_NE(all.find("Running the simulator"), std::string::npos) << all;
}

TEST_F(CliBrokenCudaModule, CudaFailsWithAClearMessage) {
  const std::string module = writeGarbage("libpipescope-cuda.so");
  ScopedEnvironment env({{"PIPESCOPE_CUDA_MODULE", module}});
  const CliResult r = runCli(smallSimRun("cuda"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("the CUDA backend cannot be used: the CUDA backend module " + module + " could not be loaded"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--backend sim"), std::string::npos) << r.err;
}

TEST_F(CliBrokenCudaModule, AMissingModuleIsNamed) {
  const std::string module = dir_ + "/nowhere/libpipescope-cuda.so";
  ScopedEnvironment env({{"PIPESCOPE_CUDA_MODULE", module}});
  const CliResult r = runCli(smallSimRun("cuda"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find(module + " (named by PIPESCOPE_CUDA_MODULE) does not exist"), std::string::npos) << r.err;
}

TEST_F(CliBrokenCudaModule, AModuleOfAnotherBuildIsRefused) {
  ScopedEnvironment env({{"PIPESCOPE_CUDA_MODULE", std::string(PIPESCOPE_OTHER_BUILD_CUDA_MODULE)}});
  const CliResult r = runCli(smallSimRun("cuda"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.signal, 0) << "the refused module was used";
  EXPECT_NE(r.err.find("comes from another build (pipescope 0.0.1-other"), std::string::npos) << r.err;
}

TEST_F(CliBrokenCudaModule, ABrokenCublasIsNamed) {
  // The module of this build, with a damaged cuBLAS found first on the library path
  // (the module's search path is a RUNPATH, which LD_LIBRARY_PATH comes before).
  std::string cublas;
  for (const std::string& f : cudaLibrariesAmong(loadedBy(smallSimRun("auto"))))
    if (f.rfind("libcublas.so", 0) == 0) cublas = f;
  ASSERT_FALSE(cublas.empty()) << "the module loads no cuBLAS";
  writeGarbage(cublas);
  const char* old = std::getenv("LD_LIBRARY_PATH");
  ScopedEnvironment env({{"LD_LIBRARY_PATH", dir_ + (old ? ":" + std::string(old) : "")}});
  CliResult r = runCli(smallSimRun("cuda"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("needs cuBLAS (" + cublas + "), which could not be loaded"), std::string::npos) << r.err;
  r = runCli({"run", "--backend", "auto", "--preset", "naive", "--batches", "4"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("needs cuBLAS (" + cublas + ")"), std::string::npos) << r.out << r.err;
}

#endif

}  // namespace
}  // namespace pipescope::testing
