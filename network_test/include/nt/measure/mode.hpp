// The mode interface and the mode table. A measurement mode is one file under
// network_test/modes/ that fills a ModeSpec and registers it with a static Registrar; its
// identity (name, file id, alias) comes from its row in core's nt::kModeTable. The table is the
// single source of --list, the help footer and the modes' option help. Adding a mode:
// share/doc/network_test.md, "Adding a mode".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nt/measure/schedule.hpp"
#include "nt/measure/settings.hpp"
#include "nt/types.hpp"

namespace CLI {
class App;
}

namespace nt {
struct FileInfo;
}

namespace nt::measure {

class Ctx;

// What one run of a mode in a task may take, set by the runner: messages of `length` bytes, W
// unrecorded warm-up iterations, then R recorded samples that go to indices [base, base + R)
// of the task's cells (Ctx::sample_row). R and W are the run's -n and -w, or less: a batch of
// --precision (base: the samples taken before it), a repetition of --concurrent's random rounds.
struct Batch {
  std::int64_t length = 0;
  int R = 0, W = 0, base = 0;
};

// A mode's state for one run on one rank. Made by ModeSpec::start on every rank at the same
// point, after the common set-up (buffers, connections), so it may call collectives (an RMA
// window); destroyed before MPI_Finalize.
class ModeRun {
 public:
  virtual ~ModeRun() = default;
  // Executes one task on a member rank: the batch's warm-ups and samples (a one-pass mode's
  // tasks cover every length of the sweep themselves and get its first as b.length).
  virtual void run(Ctx& c, const Task& t, const Batch& b) = 0;
  // The mode's sink: what it writes besides the statistic matrices of the sweep, after the
  // measurement. Called on every rank (it may gather); rank 0 writes. Default: nothing.
  virtual void finish(Ctx& c, const FileInfo& info);
};

struct ModeSpec {
  // Identity: filled by identify() from core's mode table.
  std::string name;                  // -t NAME, the files' `mode` attribute
  int id = 0;                        // the files' test_type: stable, never reused (network_test2's
                                     // codes 1-9, loggp 10; a new mode takes the next free one)
  std::vector<std::string> aliases;  // further names -t accepts (network_test2's)
  // Shape of the measurement.
  TaskKind kind = TaskKind::ordered_pairs;
  bool results_in_rows = true;   // samples held by the sender x (rows) or the receiver y (columns)
  int min_ranks = 2;
  bool uses_noise = false;       // tasks get -p noise ranks (Settings::noise_*)
  bool common_start = false;     // needs clock offsets of every rank to rank 0
  bool pair_clocks = false;      // its pairs time across two clocks (Ctx::pair_offset): every host
                                 // pair's offset is estimated before the sweep (clocks.cpp)
  bool concurrent_ok = false;
  // true: a sweep writing the statistic matrices length by length (--resume, --raw,
  // --precision, --estimate apply). false: one pass of tasks that each cover every length; the
  // mode's sink (ModeRun::finish) writes all there is (loggp).
  bool per_length = true;
  // Hooks; each may be empty.
  std::string option_group;      // the --help section of the mode's options (default: its name)
  std::function<void(CLI::App& group, Settings&)> add_options;  // the mode's own options
  std::function<void(const Settings&, int P)> validate;          // throws UsageError
  std::function<std::vector<std::filesystem::path>(const Settings&)> own_files;  // what its sink writes
  std::function<std::unique_ptr<ModeRun>(Ctx&)> start;           // per-run state; default: `run`
  std::function<void(Ctx&, const Task&, const Batch&)> run;     // a mode without state
  // Documentation.
  std::string description;           // --list
  std::string sync_method;           // how the samples are timed, recorded in the files

  Mode mode() const { return static_cast<Mode>(id); }
  const std::string& group() const { return option_group.empty() ? name : option_group; }
  // Where the leader reports the pair as stuck: "pair 0->1" etc.
  std::string describe(const Task& t) const;
  // The mode's state for a run (start, or a wrapper of run).
  std::unique_ptr<ModeRun> begin_run(Ctx& c) const;
};

class Registry {
 public:
  void add(ModeSpec spec);  // throws Error on a name, alias or id registered twice
  const ModeSpec* find(Mode m) const;
  const ModeSpec* find(const std::string& name) const;  // canonical names and aliases
  const std::vector<ModeSpec>& all() const { return modes_; }  // ordered by id

 private:
  std::vector<ModeSpec> modes_;
};

// The table of every mode linked in.
const Registry& registry();

// `spec` with its identity (name, file id, alias) from core's mode table (nt::kModeTable in
// core/include/nt/types.hpp), the one place a mode's identity is written.
ModeSpec identify(Mode m, ModeSpec spec);

// One per mode file, at namespace scope: `const Registrar kRegistered{identify(Mode::x, {...})};`
// (or a kernels:: helper around the identified spec). nt_measure is an object library, so the
// linker keeps every mode file.
struct Registrar {
  explicit Registrar(ModeSpec spec);
};

// -t,--type: the registered modes by name and alias (nt::add_enum_option), stored in s.mode.
void add_type_option(CLI::App& app, Settings& s);
// Every mode's options, each in its option group of `app` (so --help shows them by mode).
void add_mode_options(CLI::App& app, Settings& s);
// --list: every mode with its aliases, description and options (read from `app`).
std::string list_modes_text(const CLI::App& app);
// The help footer: the mode names.
std::string modes_footer();

}  // namespace nt::measure
