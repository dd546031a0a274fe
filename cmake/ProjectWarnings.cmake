# Warnings for every target we own (linked PRIVATE, never into dependencies).
# Warnings become errors through CMAKE_COMPILE_WARNING_AS_ERROR, set by scripts/test.sh,
# never here: a newer compiler on a user's machine must not break the build.
add_library(capsim_warnings INTERFACE)
target_compile_options(capsim_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
  -Wnull-dereference -Wformat=2 -Wimplicit-fallthrough
  $<$<CXX_COMPILER_ID:GNU>:-Wduplicated-cond -Wlogical-op>)
