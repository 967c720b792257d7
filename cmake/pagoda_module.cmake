# pagoda_module(NAME SOURCES ... DEPS ...): one library per module, include root src/.
function(pagoda_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(pagoda_${name} STATIC ${ARG_SOURCES})
  target_include_directories(pagoda_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(pagoda_${name} PUBLIC ${ARG_DEPS})
endfunction()

# pagoda_test(NAME SOURCES ... DEPS ...): one GoogleTest executable registered with ctest.
# Tests find the default model and fixtures through these definitions.
# TIMEOUT: seconds per test (default 600). COST: ctest starts tests of
# higher cost first, so that a long one overlaps the others under -j.
function(pagoda_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;COST" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  if(NOT ARG_COST)
    set(ARG_COST 0)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    PAGODA_TEST_MODEL="${PAGODA_DEFAULT_MODEL}"
    PAGODA_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
  # Prefix test names with the executable so `ctest -R <module>` selects a module.
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT ${ARG_TIMEOUT} COST ${ARG_COST})
endfunction()
