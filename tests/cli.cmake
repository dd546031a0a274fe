# CLI smoke tests registered with CTest (included by tests/CMakeLists.txt). Other commands may
# append their own entries below.

# capsim catalog (the embedded AWS catalog; runs from the build folder, not the source tree).
add_test(NAME cli.catalog.list_m5
  COMMAND capsim catalog list --where "karpenter.k8s.aws/instance-family In m5" -o table
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.catalog.list_m5 PROPERTIES
  PASS_REGULAR_EXPRESSION "m5\\.xlarge +4 +16 +amd64 +- +3920m +13\\.83 +58 +0\\.1920")
add_test(NAME cli.catalog.show_json
  COMMAND capsim catalog show m5.xlarge -o json
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.catalog.show_json PROPERTIES
  PASS_REGULAR_EXPRESSION "\"allocatable\": {\n +\"cpu_millis\": 3920,\n +\"memory_mib\": 14162,\n +\"pods\": 58")
add_test(NAME cli.catalog.unknown_type COMMAND capsim catalog show m5.xlarg)
set_tests_properties(cli.catalog.unknown_type PROPERTIES WILL_FAIL TRUE)
