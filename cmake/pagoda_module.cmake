# pagoda_module(NAME SOURCES ... DEPS ...): one library per module, include root src/.
function(pagoda_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(pagoda_${name} STATIC ${ARG_SOURCES})
  target_include_directories(pagoda_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(pagoda_${name} PUBLIC ${ARG_DEPS})
endfunction()

# pagoda_test(NAME SOURCES ... DEPS ...): one GoogleTest executable registered with ctest.
# Tests find the default model and fixtures through these definitions.
function(pagoda_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    PAGODA_TEST_MODEL="${PAGODA_DEFAULT_MODEL}"
    PAGODA_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
  # Prefix test names with the executable so `ctest -R <module>` selects a module.
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
endfunction()
