# pagoda_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...]): one
# library per module. PUBLIC_DEPS are the modules and libraries that its
# public headers include; PRIVATE_DEPS those that only its sources use.
#
# A module's include root holds nothing but its own headers: it is
# <build>/include/<NAME>, where pagoda/<dir> is a link to the module's source
# folder. So a target sees another module's headers only by linking it (or
# by linking a module that has it as a PUBLIC dependency), and an include of
# a module that was not linked fails to compile.
function(pagoda_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(pagoda_${name} STATIC ${ARG_SOURCES})
  pagoda_own_headers(pagoda_${name} ${name} PUBLIC)
  target_link_libraries(pagoda_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# pagoda_own_headers(TARGET NAME PUBLIC|PRIVATE): gives TARGET the include
# root that holds only the headers of the current source folder (see above).
function(pagoda_own_headers target name scope)
  file(RELATIVE_PATH dir "${PROJECT_SOURCE_DIR}/src/pagoda" "${CMAKE_CURRENT_SOURCE_DIR}")
  set(root "${PROJECT_BINARY_DIR}/include/${name}")
  set(link "${root}/pagoda/${dir}")
  if(NOT IS_SYMLINK "${link}")
    get_filename_component(parent "${link}" DIRECTORY)
    file(MAKE_DIRECTORY "${parent}")
    file(CREATE_LINK "${CMAKE_CURRENT_SOURCE_DIR}" "${link}" SYMBOLIC)
  endif()
  target_include_directories(${target} ${scope} "${root}")
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
