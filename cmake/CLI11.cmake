# CLI11 (header-only) splits pipescope-cli's command lines. Debian ships it as
# libcli11-dev with a CMake package; the GPU machine has none, so a carried copy of
# the headers (tools/make-carry.sh puts CLI/ into .carry/include) is accepted too.
find_package(CLI11 2.1 QUIET CONFIG)
if(NOT TARGET CLI11::CLI11)
  set(PIPESCOPE_CLI11_INCLUDE "" CACHE PATH "Directory holding CLI/CLI.hpp when no installed CLI11 package is found")
  if(NOT EXISTS "${PIPESCOPE_CLI11_INCLUDE}/CLI/CLI.hpp")
    message(FATAL_ERROR "CLI11 not found. Install it (apt-get install libcli11-dev) or set "
                        "PIPESCOPE_CLI11_INCLUDE to a directory containing CLI/CLI.hpp.")
  endif()
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${PIPESCOPE_CLI11_INCLUDE}")
endif()
