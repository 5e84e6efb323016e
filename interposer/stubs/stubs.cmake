# Weak "not implemented" stubs for every export of a replaced library; see README.md.
#
#   include(${CMAKE_CURRENT_SOURCE_DIR}/stubs/stubs.cmake)   # once, e.g. in interposer/
#   seer_add_stub_sources(<target> <lib> <symbols-file> <error-code>
#                         [ERROR_NAME <name>] [RETURNS <returns-file>] [ERROR_HOOK <c-function>])
#
# Relative file names are taken relative to this directory, where the data files live. RETURNS
# defaults to the symbols file with the extension .returns, when that file exists.
include_guard(GLOBAL)

if(NOT DEFINED LIBUNWIND_FOUND)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBUNWIND REQUIRED IMPORTED_TARGET libunwind)
endif()

# Compiled once, linked into every replacement library; each keeps its own hidden copy.
# libunwind is opened at run time with RTLD_LOCAL (see stack_trace.cpp), so only its headers
# are used here.
add_library(seer_report_unsupported OBJECT
  "${CMAKE_CURRENT_LIST_DIR}/report_unsupported.cpp"
  "${CMAKE_CURRENT_LIST_DIR}/stack_trace.cpp")
set_target_properties(seer_report_unsupported PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(seer_report_unsupported PUBLIC "${CMAKE_CURRENT_LIST_DIR}")
target_include_directories(seer_report_unsupported SYSTEM PRIVATE ${LIBUNWIND_INCLUDE_DIRS})
target_compile_options(seer_report_unsupported PRIVATE ${LIBUNWIND_CFLAGS_OTHER})
target_link_libraries(seer_report_unsupported PUBLIC ${CMAKE_DL_LIBS})

# May be called from any directory of the build.
function(seer_add_stub_sources target lib symbols_file error_code)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "ERROR_NAME;RETURNS;ERROR_HOOK" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "seer_add_stub_sources: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(stubs_dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  cmake_path(ABSOLUTE_PATH symbols_file BASE_DIRECTORY "${stubs_dir}")
  set(generator "${stubs_dir}/gen_stubs.py")
  set(output "${CMAKE_CURRENT_BINARY_DIR}/seer_stubs/${target}_${lib}_stubs.cpp")
  set(command "${Python3_EXECUTABLE}" "${generator}" --lib "${lib}" --symbols "${symbols_file}"
              --error-code "${error_code}" --out "${output}")
  set(depends "${generator}" "${symbols_file}")
  if(arg_ERROR_NAME)
    list(APPEND command --error-name "${arg_ERROR_NAME}")
  endif()
  if(arg_ERROR_HOOK)
    list(APPEND command --error-hook "${arg_ERROR_HOOK}")
  endif()
  if(arg_RETURNS)
    set(returns_file "${arg_RETURNS}")
    cmake_path(ABSOLUTE_PATH returns_file BASE_DIRECTORY "${stubs_dir}")
  else()
    cmake_path(REPLACE_EXTENSION symbols_file LAST_ONLY .returns OUTPUT_VARIABLE returns_file)
    if(NOT EXISTS "${returns_file}")
      unset(returns_file)
    endif()
  endif()
  if(DEFINED returns_file)
    list(APPEND command --returns "${returns_file}")
    list(APPEND depends "${returns_file}")
  endif()
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/seer_stubs"
    COMMAND ${command}
    DEPENDS ${depends}
    COMMENT "Generating ${lib} stubs for ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${output}")
  target_link_libraries(${target} PRIVATE seer_report_unsupported)
endfunction()
