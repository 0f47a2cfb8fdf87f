// --retest / --retest-seconds: after the concurrent rounds of a length, the cells that look loaded
// are measured again alone, one pair after the other.
//
// Looking loaded, against the cells of the same class (peers on the rank's host, peers on other
// hosts), by the largest of three ratios (each against --retest-ratio):
//   - the cell's median over the median of its line (the rank's row, or column when the mode's
//     receiver holds the samples): it stands out of its line;
//   - the cell's median over the median of the peer's line: it stands out of the other end's line
//     (a leaf whose uplink saturates loads every cell of its ranks' lines, so none stands out of
//     its own line, but each stands out of the line of its peer behind an idle uplink);
//   - the cell's spread (largest / smallest sample) over the median spread of its line: its
//     samples disagree. Every sample of a pair runs in another round with other partners, so a
//     spread above the line's says some round loaded the pair.
// Each rank judges its own line (O(P)) and learns the other lines' medians with one allgather of
// two values per rank; the budget of --retest N pairs is shared out highest ratio first with one
// reduction of a histogram of the ratios and one exclusive scan (no rank sees more than its
// line); the chosen cells are allgathered (O(N) per rank) into the same task list on every rank
// and run through the sequential schedule. --retest-seconds S runs them in chunks, doubling,
// while the time measured so far says the next chunk fits in S.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>

#include "schedules.hpp"
#include "nt/stats.hpp"

namespace nt::measure {

namespace {

// Histogram of log(ratio / retest_ratio), per tier: the cells that stand out of their own line
// first (the line's other cells, measured in the same rounds, are the surest reference: with a
// small budget these are the cells whose load would otherwise read as structure), then the cells
// that only the peer's line or the spread of their samples call loaded.
constexpr int kTierBins = 256;
constexpr int kBins = 2 * kTierBins;
constexpr double kBinsPerFactorTwo = 32.0;  // resolution: 2 % steps of the ratio, 256x range per tier
// Without a pair budget (--retest-seconds alone) at most this many pairs per rank are chosen.
constexpr int kPairsPerRankWithoutCount = 4;

struct Candidate {
  double ratio;
  int x, y;   // the cell, our orientation
  int tier;   // 1: stands out of its own line; 0: of the peer's line, or its samples disagree
};

int bin_of(const Candidate& m, double threshold) {
  const double b = std::log2(m.ratio / threshold) * kBinsPerFactorTwo;
  return m.tier * kTierBins + std::clamp(static_cast<int>(b), 0, kTierBins - 1);
}

// A line's typical cell per class (0: peers on the rank's host, 1: other hosts): the median of the
// cells' medians and of their spreads (largest / smallest sample; 1 without two positive samples).
struct LineTypical {
  double median[2] = {0, 0};
  double spread[2] = {1, 1};
};

double spread_of(const Ctx& c, std::size_t q) {
  const SampleStore& store = runner(c).store;
  const double* v = store.cell(q);
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  int n = 0;
  for (int i = 0; i < store.used[q]; ++i)
    if (std::isfinite(v[i]) && v[i] > 0) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
      ++n;
    }
  return n >= 2 ? hi / lo : 1.0;
}

int class_of(const Ctx& c, std::size_t q) { return c.hosts[q] == c.hosts[static_cast<std::size_t>(c.rank)] ? 0 : 1; }

// Per class of this rank's line, the median of values[q] over its peers q whose cell is known
// (finite known[q]); NaN for an empty class.
std::array<double, 2> class_medians(const Ctx& c, const std::vector<double>& values, const std::vector<double>& known) {
  std::vector<double> of_class[2];
  for (std::size_t q = 0; q < values.size(); ++q)
    if (q != static_cast<std::size_t>(c.rank) && std::isfinite(known[q])) of_class[class_of(c, q)].push_back(values[q]);
  std::array<double, 2> out{kNaN, kNaN};
  for (int k = 0; k < 2; ++k)
    if (!of_class[k].empty()) out[static_cast<std::size_t>(k)] = median(std::span<const double>(of_class[k]));
  return out;
}

LineTypical typical_of(const Ctx& c, const std::vector<double>& medians, const std::vector<double>& spreads) {
  const auto m = class_medians(c, medians, medians), s = class_medians(c, spreads, medians);
  LineTypical t;
  for (std::size_t k = 0; k < 2; ++k)
    if (std::isfinite(m[k])) {
      t.median[k] = m[k];
      t.spread[k] = std::max(1.0, s[k]);
    }
  return t;
}

// The candidate for peer q of this rank's line, in our orientation.
Candidate candidate(const Ctx& c, std::size_t q, double ratio, int tier) {
  const int a = c.rank, b = static_cast<int>(q);
  return c.spec.results_in_rows ? Candidate{ratio, a, b, tier} : Candidate{ratio, b, a, tier};
}

// The cells of this rank's line that look loaded (see the top of the file), any order.
std::vector<Candidate> standing_out(Ctx& c, const std::vector<double>& medians) {
  const auto P = medians.size();
  std::vector<double> spreads(P, 1.0);
  for (std::size_t q = 0; q < P; ++q) spreads[q] = spread_of(c, q);
  const LineTypical mine = typical_of(c, medians, spreads);
  std::vector<double> lines(2 * P);  // every rank's line medians, [rank * 2 + class]
  MPI_Allgather(mine.median, 2, MPI_DOUBLE, lines.data(), 2, MPI_DOUBLE, c.comm);
  std::vector<Candidate> out;
  for (std::size_t q = 0; q < P; ++q) {
    if (q == static_cast<std::size_t>(c.rank) || !std::isfinite(medians[q])) continue;
    const int k = class_of(c, q);
    const double m = mine.median[k], theirs = lines[2 * q + static_cast<std::size_t>(k)];
    const double own = m > 0 ? medians[q] / m : 0.0;
    double other = spreads[q] / mine.spread[k];
    if (theirs > 0) other = std::max(other, medians[q] / theirs);
    const bool stands_out = own > c.settings.schedule.retest.ratio;
    if (!stands_out && !(other > c.settings.schedule.retest.ratio)) continue;
    out.push_back(candidate(c, q, stands_out ? own : other, stands_out ? 1 : 0));
  }
  return out;
}

// The candidates this rank keeps within a global budget of `budget` cells: every cell of the bins
// above the boundary bin, and of the boundary bin as many as the ranks before it left.
std::vector<Candidate> within_budget(Ctx& c, std::vector<Candidate> mine, long budget) {
  const double thr = c.settings.schedule.retest.ratio;
  std::vector<long> hist(kBins, 0), all(kBins, 0);
  for (const auto& m : mine) ++hist[static_cast<std::size_t>(bin_of(m, thr))];
  MPI_Allreduce(hist.data(), all.data(), kBins, MPI_LONG, MPI_SUM, c.comm);
  long taken = 0;
  int cut = -1;  // bins above cut are taken whole
  for (int b = kBins - 1; b >= 0; --b) {
    if (taken + all[static_cast<std::size_t>(b)] > budget) {
      cut = b;
      break;
    }
    taken += all[static_cast<std::size_t>(b)];
  }
  long here = cut >= 0 ? hist[static_cast<std::size_t>(cut)] : 0, before = 0;
  MPI_Exscan(&here, &before, 1, MPI_LONG, MPI_SUM, c.comm);
  if (c.rank == 0) before = 0;
  const long quota = std::clamp(budget - taken - before, 0L, here);
  std::sort(mine.begin(), mine.end(), [](const Candidate& a, const Candidate& b) { return a.ratio > b.ratio; });
  std::vector<Candidate> keep;
  long in_cut = 0;
  for (const auto& m : mine) {
    const int b = bin_of(m, thr);
    if (b > cut || (b == cut && in_cut++ < quota)) keep.push_back(m);
  }
  return keep;
}

// Every rank's chosen cells, on every rank, as tasks in the order of the budget's bins (own line
// first, highest ratio first; --retest-seconds runs them in this order), one task per pair of an
// exchange mode.
std::vector<Task> retest_tasks(Ctx& c, std::size_t k, const std::vector<Candidate>& keep) {
  std::vector<double> mine;
  for (const auto& m : keep) {
    const double order = bin_of(m, c.settings.schedule.retest.ratio) + m.ratio / (m.ratio + 1.0);  // bin, then ratio
    mine.insert(mine.end(), {order, static_cast<double>(m.x), static_cast<double>(m.y)});
  }
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(c.size)), displs(static_cast<std::size_t>(c.size), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, c.comm);
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> every(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, every.data(), counts.data(), displs.data(), MPI_DOUBLE, c.comm);
  std::vector<std::tuple<double, int, int>> cells;
  const bool exchange = c.spec.kind == TaskKind::exchange_pairs;
  for (std::size_t i = 0; i + 2 < every.size(); i += 3) {
    int x = static_cast<int>(every[i + 1]), y = static_cast<int>(every[i + 2]);
    if (exchange && x > y) std::swap(x, y);
    cells.emplace_back(-every[i], x, y);
  }
  std::sort(cells.begin(), cells.end());
  const TaskList list(c.spec, unshuffled(c.settings), c.size, k);
  std::vector<Task> tasks;
  std::vector<std::pair<int, int>> seen;
  for (const auto& [r, x, y] : cells) {
    if (exchange && std::find(seen.begin(), seen.end(), std::make_pair(x, y)) != seen.end()) continue;
    seen.emplace_back(x, y);
    tasks.push_back(list.pair_task(x, y));
  }
  return tasks;
}

// The cells of this rank's line that tasks [0, n) measured: peers q.
std::vector<std::size_t> measured_peers(const Ctx& c, const std::vector<Task>& tasks, std::size_t n) {
  std::vector<std::size_t> peers;
  for (std::size_t i = 0; i < n; ++i) add_line_peers(c, tasks[i], peers);
  return peers;
}

// --retest-hosts: every host pair's pair, one after the other; the cells of this rank's line it
// measured, and how many pairs ran.
struct HostPairsRun {
  std::vector<std::size_t> peers;
  long pairs = 0;
};
HostPairsRun run_host_pairs(Ctx& c, std::size_t k, std::int64_t length) {
  const HostPairList list(c.spec, c.settings, c.hosts, k);
  run_sequential(c, list, length);
  HostPairsRun out;
  const auto mine = list.positions_of(c.rank);  // always known (a closed form)
  for (std::size_t u : *mine) add_line_peers(c, list[u], out.peers);
  out.pairs = static_cast<long>(list.size());
  return out;
}

// Runs the tasks in chunks within `budget` seconds (all of them when budget <= 0); returns how
// many ran.
std::size_t run_within_time(Ctx& c, const std::vector<Task>& tasks, std::int64_t length, double budget) {
  const double t0 = Ctx::now();
  std::size_t done = 0;
  long chunk = budget > 0 ? 4 : static_cast<long>(tasks.size());
  while (done < tasks.size() && chunk > 0) {
    const std::size_t end = std::min(tasks.size(), done + static_cast<std::size_t>(chunk));
    run_sequential(c, std::vector<Task>(tasks.begin() + static_cast<std::ptrdiff_t>(done),
                                        tasks.begin() + static_cast<std::ptrdiff_t>(end)),
                   length);
    done = end;
    if (budget <= 0) continue;
    if (c.rank == 0) {  // rank 0 sent the first go and led the schedule: its clock decides
      const double spent = Ctx::now() - t0, per = spent / static_cast<double>(done);
      chunk = per > 0 ? std::min(2 * chunk, static_cast<long>((budget - spent) / per)) : 2 * chunk;
    }
    MPI_Request req;
    MPI_Ibcast(&chunk, 1, MPI_LONG, 0, c.comm, &req);
    c.idle_wait(req, idle_deadline(c, 1), "timeout: waiting for the re-test's next chunk");
  }
  return done;
}

// The isolated median of each re-tested peer of this rank's line (NaN elsewhere), from the re-test's
// sample store.
std::vector<double> isolated_medians(const Ctx& c, const std::vector<std::size_t>& peers) {
  std::vector<double> out(static_cast<std::size_t>(c.size), kNaN);
  const SampleStore& store = runner(c).store;
  for (std::size_t q : peers) {
    const auto n = static_cast<std::size_t>(store.used[q]);
    out[q] = summary_value(summarize(std::span<const double>(store.cell(q), n)), Statistic::median);
  }
  return out;
}

// The second look: with the first re-test's isolated values as the reference of each class (the
// median over the ranks of their lines' medians), the cells not re-tested whose loaded median is
// above --retest-ratio x it. Where the load moves most cells of every line (an 8:1 oversubscribed
// leaf under 8 pairs at once) none stands out of a line, and only an isolated reference finds them.
std::vector<Candidate> above_isolated(Ctx& c, const std::vector<double>& medians, const std::vector<double>& alone) {
  const auto P = medians.size();
  const auto mine = class_medians(c, alone, alone);
  std::vector<double> lines(2 * P);
  MPI_Allgather(mine.data(), 2, MPI_DOUBLE, lines.data(), 2, MPI_DOUBLE, c.comm);
  double ref[2];
  for (std::size_t k = 0; k < 2; ++k) {
    std::vector<double> known;
    for (std::size_t r = 0; r < P; ++r)
      if (std::isfinite(lines[2 * r + k])) known.push_back(lines[2 * r + k]);
    ref[k] = known.empty() ? kNaN : median(std::span<const double>(known));
  }
  std::vector<Candidate> out;
  for (std::size_t q = 0; q < P; ++q) {
    if (q == static_cast<std::size_t>(c.rank) || std::isfinite(alone[q]) || !std::isfinite(medians[q])) continue;
    const double r = ref[class_of(c, q)];
    if (!(r > 0) || !(medians[q] > c.settings.schedule.retest.ratio * r)) continue;
    out.push_back(candidate(c, q, medians[q] / r, 0));
  }
  return out;
}

// Pairs the re-test of the loaded-looking cells may take per length: --retest N, or without a count
// (--retest-seconds alone) kPairsPerRankWithoutCount per rank.
long retest_budget(const Ctx& c) {
  const Retest& r = c.settings.schedule.retest;
  return r.pairs > 0 ? r.pairs : static_cast<long>(kPairsPerRankWithoutCount) * c.size;
}

// The re-test of the cells that look loaded (--retest, --retest-seconds), within the budget: the
// first look, then the second against the isolated values so far; appends the peers measured.
long retest_standing_out(Ctx& c, std::size_t k, std::int64_t length, const std::vector<Task>& first,
                         const std::vector<double>& medians, std::vector<std::size_t>& peers) {
  const double t0 = Ctx::now(), seconds = c.settings.schedule.retest.seconds;
  const long budget = retest_budget(c);
  const std::size_t ran = run_within_time(c, first, length, seconds);
  const auto firsts = measured_peers(c, first, ran);
  peers.insert(peers.end(), firsts.begin(), firsts.end());
  std::size_t ran_second = 0;
  double left = seconds > 0 ? seconds - (Ctx::now() - t0) : 0.0;  // rank 0's, on every rank: one decision
  if (seconds > 0) {
    MPI_Request req;
    MPI_Ibcast(&left, 1, MPI_DOUBLE, 0, c.comm, &req);
    c.idle_wait(req, idle_deadline(c, 1), "timeout: waiting for the re-test's second look");
  }
  if (ran == first.size() && static_cast<long>(ran) < budget && (seconds <= 0 || left > 0)) {
    const auto second = retest_tasks(
        c, k, within_budget(c, above_isolated(c, medians, isolated_medians(c, peers)), budget - static_cast<long>(ran)));
    ran_second = run_within_time(c, second, length, left);
    const auto more = measured_peers(c, second, ran_second);
    peers.insert(peers.end(), more.begin(), more.end());
  }
  return static_cast<long>(ran + ran_second);
}

}  // namespace

RetestResult run_retest(Ctx& c, std::size_t k, std::int64_t length, const std::vector<double>& medians,
                        std::vector<double>& isolated) {
  const auto PU = static_cast<std::size_t>(c.size);
  const std::vector<Statistic>& stats = standard_statistics();
  isolated.assign(stats.size() * PU, kNaN);
  const Retest& retest = c.settings.schedule.retest;
  const bool by_budget = retest.by_budget();
  const long budget = retest_budget(c);
  const std::vector<Task> first =
      by_budget ? retest_tasks(c, k, within_budget(c, standing_out(c, medians), budget)) : std::vector<Task>{};
  RetestResult result;
  if (first.empty() && !retest.hosts) return result;
  const double t0 = Ctx::now();
  SampleStore& store = runner(c).store;
  SampleStore loaded = std::move(store);  // the loaded samples stay for the files
  store.stride = loaded.stride;
  store.values.assign(loaded.values.size(), 0.0);
  store.flags.assign(loaded.flags.size(), 0);
  store.used.assign(PU, loaded.stride);
  idle_barrier(c, 1, length);
  std::vector<std::size_t> peers;
  if (retest.hosts) {
    HostPairsRun hp = run_host_pairs(c, k, length);
    peers = std::move(hp.peers);
    result.pairs += hp.pairs;
  }
  if (!first.empty()) result.pairs += retest_standing_out(c, k, length, first, medians, peers);
  idle_barrier(c, 1, length);  // every re-test over: the time is the re-test's, not this rank's part
  for (std::size_t q : peers) {
    const Summary s = summarize(std::span<const double>(store.cell(q), static_cast<std::size_t>(store.used[q])));
    for (std::size_t i = 0; i < stats.size(); ++i) isolated[i * PU + q] = summary_value(s, stats[i]);
  }
  if (retest.hosts) fill_by_host_pair(c, isolated);
  store = std::move(loaded);
  result.seconds = Ctx::now() - t0;
  return result;
}

}  // namespace nt::measure
