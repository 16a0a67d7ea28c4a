# NCCL, the collective library the CUDA backend's runs over several GPUs use. Optional:
# a build without it runs several GPUs on the simulator only (the CUDA backend says why).
#
# Only the header is compiled against: engine/cuda loads libnccl.so.2 with dlopen when
# a run over several GPUs starts (NCCL is ~200 MB and pulls in its own CUDA runtime),
# so neither the app nor a one-GPU CUDA run maps it, and a machine without NCCL still
# runs one GPU. The library found here is that load's fallback path and what the
# multi-GPU bench's hand-written reference links against.
#
# Sets PIPESCOPE_HAVE_NCCL, PIPESCOPE_NCCL_INCLUDE, PIPESCOPE_NCCL_LIBRARY.
set(PIPESCOPE_WITH_NCCL "AUTO" CACHE STRING "Several GPUs on the CUDA backend through NCCL: AUTO (when found), ON or OFF")
set_property(CACHE PIPESCOPE_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)
set(PIPESCOPE_NCCL_ROOT "" CACHE PATH "Where NCCL is installed (include/nccl.h, lib/libnccl.so), when not in a system path")
set(PIPESCOPE_HAVE_NCCL OFF)
if(PIPESCOPE_HAVE_CUDA AND (PIPESCOPE_WITH_NCCL STREQUAL "AUTO" OR PIPESCOPE_WITH_NCCL))
  # Debian's libnccl-dev: /usr/include, /usr/lib/<triplet>; NVIDIA's wheels: next to the toolkit's.
  find_path(PIPESCOPE_NCCL_INCLUDE nccl.h
    HINTS ${PIPESCOPE_NCCL_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include)
  find_library(PIPESCOPE_NCCL_LIBRARY NAMES nccl libnccl.so.2
    HINTS ${PIPESCOPE_NCCL_ROOT}/lib ${PIPESCOPE_NCCL_ROOT}/lib64 ${CUDAToolkit_LIBRARY_DIR}
          ${CUDAToolkit_LIBRARY_ROOT}/lib ${CUDAToolkit_LIBRARY_ROOT}/lib64)
  if(PIPESCOPE_NCCL_INCLUDE AND PIPESCOPE_NCCL_LIBRARY)
    file(STRINGS "${PIPESCOPE_NCCL_INCLUDE}/nccl.h" _nccl_code REGEX "^#define NCCL_VERSION_CODE [0-9]+")
    string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _nccl_code "${_nccl_code}")
    # ncclConfig_t (non-blocking communicators, the time limit on their creation) came in 2.14.
    if(_nccl_code AND _nccl_code GREATER_EQUAL 21400)
      set(PIPESCOPE_HAVE_NCCL ON)
      message(STATUS "pipescope: NCCL ${_nccl_code} (${PIPESCOPE_NCCL_INCLUDE}/nccl.h, ${PIPESCOPE_NCCL_LIBRARY})")
    else()
      message(STATUS "pipescope: NCCL at ${PIPESCOPE_NCCL_INCLUDE} is older than 2.14 (version code '${_nccl_code}'): not used")
    endif()
  endif()
  if(NOT PIPESCOPE_HAVE_NCCL)
    if(PIPESCOPE_WITH_NCCL STREQUAL "AUTO")
      message(STATUS "pipescope: NCCL 2.14+ not found (nccl.h and libnccl): the CUDA backend runs one GPU; "
                     "several GPUs run on the simulator. Install libnccl-dev or set PIPESCOPE_NCCL_ROOT.")
    else()
      message(FATAL_ERROR "PIPESCOPE_WITH_NCCL=ON but NCCL 2.14+ (nccl.h and libnccl) was not found. Install "
                          "libnccl-dev, set PIPESCOPE_NCCL_ROOT, or configure with -DPIPESCOPE_WITH_NCCL=OFF.")
    endif()
  endif()
endif()
