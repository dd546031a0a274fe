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

# capsim preview (kubectl dumps written by tests/fixtures/preview/make_fixtures.py); more in
# tests/unit/preview/preview_cli_test.cpp.
add_test(NAME cli.preview.text
  COMMAND capsim preview --nodes ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/nodes.json
    --pods ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/pods.json
    --nodepools ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/nodepools.yaml
    --pdbs ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/pdbs.json)
set_tests_properties(cli.preview.text PROPERTIES
  PASS_REGULAR_EXPRESSION "ip-10-0-1-20\\.ec2\\.internal +m5\\.2xlarge +default +0\\.3840 +replace \\(single-node\\) +c5\\.xlarge \\$0\\.1700 +0\\.2140 +156\\.22")
add_test(NAME cli.preview.malformed
  COMMAND capsim preview --nodes ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/nodepools.yaml
    --pods ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/pods.json
    --nodepools ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/preview/nodepools.yaml)
set_tests_properties(cli.preview.malformed PROPERTIES WILL_FAIL TRUE)

# capsim's restart with glibc's heap on huge pages changes nothing a user sees (cli/main.cpp).
add_test(NAME cli.restart_huge_pages
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/restart_test.sh $<TARGET_FILE:capsim>
    ${PROJECT_SOURCE_DIR}/scenarios/quickstart.yaml)
