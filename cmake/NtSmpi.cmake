# The SMPI build (preset smpi): network_test against SimGrid's SMPI, for simulated clusters.
#
# smpicxx cannot be the compiler: it force-includes smpi_helpers.h, whose macros (exit, free,
# sleep, clock_gettime, ...) break CLI11 and the standard library headers. Instead the ordinary
# compiler builds everything as position-independent code against SMPI's mpi.h, and network_test
# is linked as a shared object against libsimgrid, which smpirun loads (dlopen) once per simulated
# rank. The few calls that must see simulated time are explicit under NT_SMPI (Ctx::now, the idle
# wait's sleep); every other host call is left to SMPI's defaults.
find_package(PkgConfig REQUIRED)
pkg_check_modules(SIMGRID REQUIRED IMPORTED_TARGET simgrid)
find_path(NT_SMPI_INCLUDE_DIR mpi.h PATHS ${SIMGRID_INCLUDEDIR}/smpi /usr/include/smpi NO_DEFAULT_PATH REQUIRED)
find_program(MPIEXEC_EXECUTABLE smpirun REQUIRED)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
add_library(MPI::MPI_CXX INTERFACE IMPORTED)
target_include_directories(MPI::MPI_CXX INTERFACE ${NT_SMPI_INCLUDE_DIR})
target_compile_definitions(MPI::MPI_CXX INTERFACE NT_SMPI=1)
target_link_libraries(MPI::MPI_CXX INTERFACE PkgConfig::SIMGRID)
set(NT_MPI_FLAVOUR smpi)
set(MPI_CXX_LIBRARIES simgrid)
# No nt-mpiexec here: smpirun needs a platform and a host file (scripts/simulate writes both).
