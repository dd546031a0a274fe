add_library(capsim_settings INTERFACE)
target_compile_definitions(capsim_settings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)
if(CAPSIM_SANITIZE)
  target_compile_options(capsim_settings INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(capsim_settings INTERFACE -fsanitize=address,undefined)
endif()

# POPCNT (every x86-64 CPU since about 2008): the schedulers count the set bits of node masks in
# their hottest loops, which baseline x86-64 code does with a library call per word.
option(CAPSIM_POPCNT "Use the POPCNT instruction on x86-64" ON)
if(CAPSIM_POPCNT AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-mpopcnt CAPSIM_HAS_MPOPCNT)
  if(CAPSIM_HAS_MPOPCNT)
    target_compile_options(capsim_settings INTERFACE -mpopcnt)
  endif()
endif()
