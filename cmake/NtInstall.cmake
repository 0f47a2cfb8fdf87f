# Installation layout (GNUInstallDirs; prefix /usr in the .deb) and the Debian package.
#   bin/                                  every program (installed by the program's own CMakeLists)
#   share/man/man1/<program>.1            man pages made from --help at build time (help2man)
#   share/doc/network-tests/              README.md and share/doc/*.md with their images
#   share/network-tests/{slurm,pbs}/      the batch-job templates (NT_BIN defaults to network_test's
#                                         directory on PATH, so they run the installed programs)
#   libexec/network-tests/plan-modes      the templates' planning helper
#   share/applications, share/icons       desktop file and icon of network_viewer
# `cpack -G DEB` in the build folder makes network-tests_<version>_<arch>.deb (MPICH build) or
# network-tests-openmpi_... (preset openmpi): the two hold the same files and conflict.
set(NT_PACKAGE_NAME network-tests)
if(NT_MPI_FLAVOUR STREQUAL "openmpi")
  set(NT_PACKAGE_NAME network-tests-openmpi)
endif()
set(NT_DATADIR ${CMAKE_INSTALL_DATADIR}/network-tests)
set(NT_DOCDIR ${CMAKE_INSTALL_DATADIR}/doc/network-tests)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${NT_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/doc/ DESTINATION ${NT_DOCDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/slurm/network_test.sbatch DESTINATION ${NT_DATADIR}/slurm)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/pbs/network_test.pbs DESTINATION ${NT_DATADIR}/pbs)
# The templates' planning helper, found at $NT_BIN/../libexec/network-tests.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plan-modes DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/network-tests)

# Man pages: one per program of this build, from its --help and its subcommands' (cmake/nt-man.sh).
option(NT_MAN_PAGES "Make and install a man page per program (needs help2man)" ON)
if(NT_MAN_PAGES)
  find_program(NT_HELP2MAN help2man)
  if(NOT NT_HELP2MAN)
    message(WARNING "help2man not found: no man pages (scripts/install-deps.sh installs it)")
  else()
    set(_pages)
    foreach(prog network_test network_convert network_cluster network_analyze network_viewer)
      if(TARGET ${prog})
        set(_page ${PROJECT_BINARY_DIR}/man/${prog}.1)
        find_program(NT_GZIP gzip REQUIRED)
        # QT_QPA_PLATFORM: network_viewer --help needs no display. OMPI_*: an Open MPI singleton
        # (network_test started without mpiexec) as root.
        add_custom_command(OUTPUT ${_page}.gz
          COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
          COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen HELP2MAN=${NT_HELP2MAN}
                  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                  sh ${PROJECT_SOURCE_DIR}/cmake/nt-man.sh $<TARGET_FILE:${prog}> ${_page} ${PROJECT_VERSION}
          COMMAND ${NT_GZIP} -9nf ${_page}
          DEPENDS ${prog} ${PROJECT_SOURCE_DIR}/cmake/nt-man.sh
          COMMENT "Man page of ${prog}" VERBATIM)
        list(APPEND _pages ${_page}.gz)
      endif()
    endforeach()
    add_custom_target(nt_man_pages ALL DEPENDS ${_pages})
    install(FILES ${_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ${NT_PACKAGE_NAME})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MPI interconnect benchmarking and topology-discovery suite")
set(CPACK_PACKAGE_CONTACT "network_tests developers <network-tests@invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION [=[MPI interconnect benchmarking and topology-discovery suite
 network_test measures the delay between every pair of MPI ranks over a sweep
 of message lengths into NetCDF files that survive a killed job;
 network_analyze finds topology groups, slow nodes and links, protocol
 thresholds and LogP/LogGP/Hockney parameters; network_cluster compresses the
 matrices; network_convert converts and inspects them; network_viewer shows
 them (Qt 6). Batch templates for Slurm and PBS are in /usr/share/network-tests.]=])
# Library dependencies from the binaries (dpkg-shlibdeps), plus the launcher of the MPI the
# programs are linked with (its mpiexec is what runs network_test).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(NT_MPI_FLAVOUR STREQUAL "openmpi")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin")
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS "network-tests")
elseif(NT_MPI_FLAVOUR STREQUAL "mpich")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "mpich")
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS "network-tests-openmpi")
endif()
include(CPack)

# The .deb of this build, checked without installing it (contents, man pages, libraries, a run
# of the packaged converter): scripts/check-package.sh; .ci/run also installs it (--install).
if(NT_BUILD_TESTS AND TARGET network_test AND TARGET network_convert AND TARGET network_cluster
   AND TARGET network_analyze)
  add_test(NAME package.deb
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check-package.sh ${PROJECT_BINARY_DIR})
  set_tests_properties(package.deb PROPERTIES LABELS package TIMEOUT 300)
endif()
