// network_test's measurement library (nt_measure): the umbrella of its headers and the program
// entry point. settings.hpp: common options; schedule.hpp: tasks and schedules; mode.hpp: the
// mode interface and table; ctx.hpp: the per-rank context; loggp_fit.hpp: the LogGP derivation;
// sysinfo.hpp: host information.
#pragma once

#include "nt/measure/ctx.hpp"
#include "nt/measure/loggp_fit.hpp"
#include "nt/measure/mode.hpp"
#include "nt/measure/schedule.hpp"
#include "nt/measure/settings.hpp"
#include "nt/measure/sysinfo.hpp"

namespace nt::measure {

// Runs network_test with MPI initialised; returns the exit code (every rank returns the same).
int run_network_test(int argc, char** argv);

}  // namespace nt::measure
