// The run's setup, before the measurement: the schedule's options and the seed
// (schedule_options.cpp), where every rank runs (app.cpp) and its switch (switch_map.cpp).
#pragma once

#include <optional>
#include <vector>

#include "nt/measure/measure.hpp"

namespace CLI {
class App;
}

namespace nt::measure {

// The schedule's options (schedule_options.cpp): the flags; their words made into s.schedule
// (resolve_schedule, before validation: --concurrent=K's K, --host-pairs, --switch-map,
// --sample-pairs); the checks of the value (validate_schedule). UsageError on bad input.
void add_schedule_options(CLI::App& app, Settings& s);
void resolve_schedule(Settings& s);
void validate_schedule(const Settings& s, const ModeSpec& spec);
// The seed: given, or drawn on rank 0; every rank gets it (and the sampled pairs draw from it),
// the files record it either way.
void share_seed(MPI_Comm comm, int rank, Settings& s);

// Where every rank runs (app.cpp): rank 0 gets the full description of each rank, every rank the
// numbers of every rank's host and machine (8 bytes per rank: the names were gathered to every
// rank before, 300 bytes per rank, and that allgather was P^2 messages of its own under SMPI's ring).
struct Placement {
  std::vector<RankInfo> ranks;  // rank 0 only
  // Every rank's host and machine, numbered from 0 in order of first appearance: ranks on one
  // machine share its cores even where their host names differ (RankInfo::machine).
  std::vector<int> host_of, machine_of;
  bool oversubscribed = false;  // this rank measures as oversubscribed (--oversubscribed)
  int oversubscribed_ranks = 0;  // how many ranks do
};

// --switch-map (switch_map.cpp): every rank's switch, numbered, from the file of s.schedule.switch_map (read
// on rank 0, which has pl.ranks); nothing on every rank when the file is bad (rank 0 said why).
std::optional<std::vector<int>> gather_switches(MPI_Comm comm, int rank, const Settings& s, const Placement& pl, int P);

// Seconds since this process started (/proc), for the start-up share of a run.
double process_age_s();

}  // namespace nt::measure
