# Warnings on and treated as a build signal; applied per target so third-party code
# (GoogleTest, Qt's generated moc files) is not affected.
function(pipescope_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                             -Wcast-align -Wunused -Woverloaded-virtual -Wimplicit-fallthrough>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(PIPESCOPE_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()
option(PIPESCOPE_WERROR "Treat warnings as errors" OFF)
