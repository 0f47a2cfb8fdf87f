# nt_add_program(<program> LIBRARY <library> SOURCES <file>... MAIN <main.cpp>
#                [OBJECT] [ALIAS <target>] [INCLUDE <dir>] [PUBLIC <dependency>...] [PRIVATE <dependency>...])
#
# Every program has the same shape: a static <library> that holds all of its work (the tests link
# it), and a thin <program> whose main() only calls into it, installed to bin/. INCLUDE is the
# library's public include folder (default: include/ of the calling folder); PUBLIC and PRIVATE are
# the library's dependencies (nt_warnings is always added). OBJECT makes it an object library, so
# that every file is linked even when nothing refers to it (files that register themselves).
function(nt_add_program program)
  cmake_parse_arguments(PARSE_ARGV 1 A "OBJECT" "LIBRARY;MAIN;ALIAS;INCLUDE" "SOURCES;PUBLIC;PRIVATE")
  if(NOT A_LIBRARY OR NOT A_SOURCES OR NOT A_MAIN)
    message(FATAL_ERROR "nt_add_program(${program}): LIBRARY, SOURCES and MAIN are required")
  endif()
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "nt_add_program(${program}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_INCLUDE)
    set(A_INCLUDE ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  if(A_OBJECT)
    add_library(${A_LIBRARY} OBJECT ${A_SOURCES})
  else()
    add_library(${A_LIBRARY} STATIC ${A_SOURCES})
  endif()
  if(A_ALIAS)
    add_library(${A_ALIAS} ALIAS ${A_LIBRARY})
  endif()
  target_include_directories(${A_LIBRARY} PUBLIC ${A_INCLUDE})
  target_link_libraries(${A_LIBRARY} PUBLIC ${A_PUBLIC} PRIVATE ${A_PRIVATE} nt_warnings)

  add_executable(${program} ${A_MAIN})
  target_link_libraries(${program} PRIVATE ${A_LIBRARY} nt_warnings)
  install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
