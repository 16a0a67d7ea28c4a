# cmake -DBUILD_DIR=... -DUI=ON|OFF [-DCUDA_MODULE=lib/pipescope/libpipescope-cuda.so] -P CheckInstallLayout.cmake
# Installs the build into a temporary prefix (as the .deb does, under /usr) and
# checks that every piece a user expects is there. With CUDA_MODULE (the module's
# path under the prefix) it also checks that the installed pipescope-cli finds the
# installed module relative to itself.
set(dest ${BUILD_DIR}/install-layout-test)
file(REMOVE_RECURSE ${dest})
# DESTDIR keeps /usr inside the test folder.
set(ENV{DESTDIR} ${dest})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix /usr RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${err}")
endif()
set(expected
  bin/pipescope-cli
  share/man/man1/pipescope-cli.1.gz
  share/bash-completion/completions/pipescope-cli
  share/zsh/vendor-completions/_pipescope-cli
  share/pipescope/profiles/h200.json
  share/pipescope/profiles/c1060-like.json)
if(UI)
  list(APPEND expected
    bin/pipescope
    share/man/man1/pipescope.1.gz
    share/bash-completion/completions/pipescope
    share/zsh/vendor-completions/_pipescope
    share/applications/pipescope.desktop
    share/mime/packages/pipescope.xml
    share/icons/hicolor/scalable/apps/pipescope.svg)
  foreach(size 16 22 24 32 48 64 128 256)
    list(APPEND expected share/icons/hicolor/${size}x${size}/apps/pipescope.png)
  endforeach()
endif()
if(CUDA_MODULE)
  list(APPEND expected ${CUDA_MODULE})
endif()
set(missing "")
foreach(f IN LISTS expected)
  if(NOT EXISTS ${dest}/usr/${f})
    list(APPEND missing ${f})
  endif()
endforeach()
set(module_error "")
if(CUDA_MODULE AND NOT missing)
  # `--backend cuda` loads the module before asking for a GPU: without one the run
  # fails on the GPU, never on the module. Only an unset override tests the lookup.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PIPESCOPE_CUDA_MODULE
                          ${dest}/usr/bin/pipescope-cli run --backend cuda --preset naive --batches 1 --quiet
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if("${out}${err}" MATCHES "CUDA backend cannot be used")
    set(module_error "the installed pipescope-cli does not load the installed module: ${out}${err}")
  endif()
endif()
file(REMOVE_RECURSE ${dest})
if(missing)
  message(FATAL_ERROR "cmake --install did not lay out: ${missing}")
endif()
if(module_error)
  message(FATAL_ERROR "${module_error}")
endif()
list(LENGTH expected count)
message(STATUS "install layout: all ${count} expected files present")
