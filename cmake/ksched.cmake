# Helpers shared by every folder's CMakeLists.txt.
#
#   ksched_library(NAME SOURCES a.cc b.cc DEPS other_lib ...)
#   ksched_test(NAME SOURCES a_test.cc [STANDALONE b_test.cc] DEPS lib ...
#               [LABELS slow])
#   ksched_bench(NAME SOURCES a_bench.cc DEPS lib ...)
#
# Libraries and tests are unity builds (KSCHED_UNITY_BUILD): their sources
# are compiled KSCHED_UNITY_BATCH_SIZE to a translation unit, so the common
# headers (gtest's, the API types) are parsed once per batch instead of once
# per file; a test's STANDALONE sources are compiled alone, because their
# file-local helpers share names with their neighbours'. Benchmarks stay one
# file per translation unit.
#
# Tests run with the project root as working directory, so fixtures are
# reached as ../shared/fixtures/... exactly as the issues describe.

function(ksched_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(KSCHED_UNITY_BUILD)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KSCHED_UNITY_BATCH_SIZE})
  endif()
  target_compile_options(${name} PRIVATE ${KSCHED_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

function(ksched_test name)
  if(NOT KSCHED_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;STANDALONE;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES} ${ARG_STANDALONE})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  if(KSCHED_UNITY_BUILD)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KSCHED_UNITY_BATCH_SIZE})
    set_source_files_properties(${ARG_STANDALONE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
  # Release tests at -O1, which compiles them a third faster than -O2 (they
  # are still half of a cold build's compile time); the code under test
  # stays -O2.
  target_compile_options(${name} PRIVATE ${KSCHED_WARNINGS} $<$<CONFIG:Release>:-O1>)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

function(ksched_bench name)
  if(NOT KSCHED_BUILD_BENCH)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
  target_compile_options(${name} PRIVATE ${KSCHED_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
endfunction()
