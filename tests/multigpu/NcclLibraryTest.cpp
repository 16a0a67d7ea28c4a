// Loading NCCL at run time (engine/cuda/multigpu/NcclLibrary.h): it loads where it is
// installed, says what is wrong where it is not, and NVLink multicast stays off
// whatever the environment says. None of this needs a GPU. Its own binary, linked
// with the CUDA backend's code (the gpu tests reach the backend through its module).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cuda/multigpu/NcclLibrary.h"

namespace pipescope::cuda {
namespace {

TEST(NcclLibraryTest, LoadsNcclAndTurnsNvlinkMulticastOff) {
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  const NcclApi* api = nullptr;
  try {
    api = &ncclApi();
  } catch (const NcclError& e) {
    GTEST_SKIP() << "NCCL is not installed for this process: " << e.what();
  }
  EXPECT_GE(api->version, 21400) << api->versionText();
  EXPECT_FALSE(api->path.empty());
  ASSERT_NE(std::getenv("NCCL_NVLS_ENABLE"), nullptr);
  EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  int version = 0;
  ASSERT_EQ(api->getVersion(&version), ncclSuccess);
  EXPECT_EQ(version, api->version);
  const char* text = api->getErrorString(ncclInvalidArgument);
  ASSERT_NE(text, nullptr);
  EXPECT_NE(std::string(text).find("invalid argument"), std::string::npos) << text;
}

TEST(NcclLibraryTest, AUserSettingOfNvlsIsOverruledAndSaidSo) {
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  const std::string note = forceNvlsOff();
  EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  EXPECT_NE(note.find("NCCL_NVLS_ENABLE=1"), std::string::npos) << note;
  EXPECT_NE(note.find("NVLS"), std::string::npos) << note;
  EXPECT_EQ(forceNvlsOff(), "");  // already 0: nothing to say
}

TEST(NcclLibraryTest, AMissingLibraryIsAnErrorNamingNcclAndWhatToDo) {
  try {
    loadNccl({"/nonexistent/libnccl.so.2"});
    FAIL() << "loading a library that does not exist succeeded";
  } catch (const NcclError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("NCCL could not be loaded"), std::string::npos) << what;
    EXPECT_NE(what.find("/nonexistent/libnccl.so.2"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend sim"), std::string::npos) << what;
  }
}

TEST(NcclLibraryTest, ALibraryThatIsNotNcclIsAnErrorNamingWhatIsMissing) {
  try {
    loadNccl({"libm.so.6"});
    FAIL() << "libm was accepted as NCCL";
  } catch (const NcclError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("lacks ncclGetVersion"), std::string::npos) << what;
    EXPECT_NE(what.find("ncclAllReduce"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace pipescope::cuda
