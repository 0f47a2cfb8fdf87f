// The plan of a run from a short calibration: --estimate's prediction (estimate.cpp) and
// --time-limit's choice and overrun guard (time_limit.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nt/measure/measure.hpp"
#include "setup.hpp"

namespace nt::measure {

// --estimate's calibration (estimate.cpp), also --time-limit's: what a length's tasks of each class
// and its concurrent rounds cost with c's samples and warm-up.
struct LengthCost {
  std::map<std::string, double> per_class;  // seconds per task
  std::map<int, double> concurrent;          // seconds of the length's concurrent schedule, by K (0: all)
  std::vector<double> host_lane_rate;        // lanes by switch: per switch, seconds per host pair of its lanes
};
struct Calibration {
  std::vector<std::size_t> lengths;          // indices of the lengths calibrated
  std::map<std::size_t, LengthCost> cost;    // by length index
  std::size_t rounds = 0;                    // rounds of --concurrent per length (all repetitions)
  double per_length_io = 0, seconds = 0;     // gather and writes of a length; the calibration's time
  double barrier = 0;                        // a sleeping barrier (a round of the lanes ends in one)
};
// Calibrates c's sweep on every rank (collective): tasks of every class, and when the mode has a
// concurrent schedule rounds of each concurrency in `limits` (0: every pair of a round).
// deadline (rank 0's Ctx::now()): once a timing ends past it, every rank throws CalibrationOverrun
// (--time-limit: a plan's time counts its calibration, so past the usable time none can fit).
inline constexpr double kNoDeadline = std::numeric_limits<double>::infinity();
Calibration calibrate_sweep(Ctx& c, const std::vector<int>& limits, double deadline = kNoDeadline);
// Adds to `cal` (a calibration of c's sweep) rounds of each concurrency in `limits` it lacks,
// at the lengths it calibrated (collective); its seconds grow by the time taken.
void calibrate_concurrency(Ctx& c, Calibration& cal, const std::vector<int>& limits, double deadline = kNoDeadline);
// The calibration stopped at its deadline, at messages of `length` bytes (thrown on every rank).
struct CalibrationOverrun {
  std::int64_t length = 0;
};
// The predicted seconds of each length of c's sweep (with its gather and writes): sequentially,
// and by concurrency; slowest_task: the dearest task of any class (a re-tested pair costs at most that).
struct LengthPrice {
  double sequential = 0, slowest_task = 0;
  double io = 0;                       // of both: the gather and the five records
  std::map<int, double> concurrent;    // per --concurrent=K (0: every pair of a round)
  double host_pairs = 0;               // --retest-hosts: every host pair's pair alone, what it would cost
  double host_schedule = 0;            // --host-pairs: the host pairs and the pairs within the fullest host
  double host_lanes = 0;               // --host-pairs --switch-map: in lanes by switch (host_lane_seconds)
  double sampled = 0;                  // --sample-pairs (of the settings' Sampling): its host pairs and the fullest host
};
std::vector<LengthPrice> price_sweep(const Ctx& c, const Calibration& cal);
// A length's price under schedule s (its kind, K, --retest-hosts and lanes by switch).
double schedule_price(const LengthPrice& lp, const Schedule& s);
// --estimate: calibrates on every rank; rank 0 prints the plan on stdout. startup_s: what the
// run took before the measurement (shown beside the prediction).
void run_estimate(Ctx& c, double startup_s);

// --time-limit (time_limit.cpp): the choices that fit the limit, their predicted time (seconds
// since the process started, t_origin on Ctx::now()'s clock) and per length.
struct TimePlan {
  // The schedule chosen: its kind and K, and its re-test (--retest, --retest-seconds, and
  // --retest-hosts priced in per_length); the rest as the command line gave it.
  Schedule schedule;
  int repeats = 0;                                     // -n
  double retest_cost = 0;                              // what the re-test adds to a length
  double limit_s = 0, elapsed_s = 0, predicted_s = 0;  // the limit; before the sweep; at its end
  std::vector<double> per_length;                      // rank 0: each length's predicted seconds
  std::string added;  // the options the plan chose (what the command line left open), e.g. to --resume
  std::string k_note;  // how the calibration chose K (empty when it did not)
  std::string options(const Settings& given) const;
  std::string text() const;                            // the block printed and kept in the files
  void apply(Settings& s) const;
};
// Calibrates on every rank (collective) and chooses; nothing (rank 0 printed the one line) when
// even the cheapest choice does not fit.
std::optional<TimePlan> plan_time_limit(MPI_Comm comm, const Settings& s, const std::vector<std::int64_t>& lengths,
                                        const ModeSpec& spec, const Placement& pl, double t_origin);
// The overrun guard: a LengthGate (collective; rank 0's clock decides) that stops the sweep
// before a length that would end beyond the limit.
class TimeGuard {
 public:
  TimeGuard(const TimePlan& plan, double t_origin);
  bool operator()(Ctx& c, std::size_t k);
  bool stopped() const { return stopped_at_.has_value(); }
  std::string incomplete_line(const std::vector<std::int64_t>& lengths) const;  // rank 0

 private:
  const TimePlan& plan_;
  double t_origin_, t_sweep_ = 0, next_s_ = 0, elapsed_s_ = 0;
  bool started_ = false;
  std::size_t first_ = 0;
  std::optional<std::size_t> stopped_at_;
};

}  // namespace nt::measure
