#include "nt/analysis/cube.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <limits>
#include <numeric>
#include <thread>

#include "nt/error.hpp"
#include "nt/stats.hpp"
#include "nt/hosts.hpp"

namespace nt::analysis {

Cube load_cube(const Dataset& d) {
  Cube c;
  c.P = d.ranks();
  c.mode = d.params().mode;
  c.statistic = d.params().statistic;
  c.hosts = d.meta().hosts;
  c.source = d.source().string();
  if (c.P < 2) throw Error(c.source + ": at least 2 ranks are needed for an analysis (file has " + std::to_string(c.P) + ")");
  if (d.count() == 0) throw Error(c.source + ": the file holds no message length (empty run?)");
  std::vector<std::size_t> order(d.count());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return d.lengths()[a] < d.lengths()[b]; });
  const auto PP = static_cast<std::size_t>(c.P) * static_cast<std::size_t>(c.P);
  c.v.resize(PP * order.size());
  const bool skip_diag = diagonal_is_zero(c.mode);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Matrix m = d.matrix(order[k]);
    c.bad.scan(m, order[k], skip_diag);
    // Bad delays (NaN, infinite, negative, absurd) are missing data for every analysis.
    auto out = c.v.begin() + static_cast<std::ptrdiff_t>(k * PP);
    std::transform(m.values().begin(), m.values().end(), out,
                   [](double x) {
                     const auto f = static_cast<float>(x);
                     return is_good_delay(x) && std::isfinite(f) ? f : std::numeric_limits<float>::quiet_NaN();
                   });
    c.lengths.push_back(d.lengths()[order[k]]);
  }
  if (!c.hosts.empty() && static_cast<int>(c.hosts.size()) != c.P) c.hosts.clear();
  return c;
}

Cube cube_header(const Cube& c) {
  Cube h;
  h.P = c.P;
  h.lengths = c.lengths;
  h.mode = c.mode;
  h.statistic = c.statistic;
  h.hosts = c.hosts;
  h.source = c.source;
  h.bad = c.bad;
  return h;
}

double population_median(std::vector<double>& x) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  constexpr std::size_t kMax = std::size_t{1} << 18;
  if (x.size() > kMax) {
    const std::size_t n = x.size();
    for (std::size_t q = 0; q < kMax; ++q) x[q] = x[q * n / kMax];
    x.resize(kMax);
  }
  return median_inplace(x);
}

RobustSpread population_spread(std::vector<double>& x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double e) { return !std::isfinite(e); }), x.end());
  if (x.empty()) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  const double m = population_median(x);
  for (double& e : x) e = std::fabs(e - m);
  return {m, robust_sigma_of_deviations(x)};
}

namespace {
std::atomic<std::size_t> g_threads{0};
}  // namespace

void set_threads(std::size_t n) { g_threads = n; }

std::size_t threads() {
  if (const std::size_t n = g_threads.load(); n > 0) return n;
  // The CPUs this process may run on (a batch job's allocation), not the whole machine's.
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? static_cast<std::size_t>(std::max(1, CPU_COUNT(&set)))
                                                     : std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  const std::size_t T = std::min<std::size_t>(threads(), n);
  if (T <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  std::vector<std::thread> th;
  for (std::size_t t = 1; t < T; ++t) th.emplace_back([&, t] { body(t * n / T, (t + 1) * n / T); });
  body(0, n / T);
  for (auto& x : th) x.join();
}

std::vector<std::string> hosts_for(const Cube& c, const std::string& override_file) {
  if (override_file.empty()) return c.hosts;
  auto h = read_hosts(override_file);
  if (static_cast<int>(h.size()) != c.P)
    throw FileError(override_file, "holds " + std::to_string(h.size()) + " hosts, the data has " +
                                       std::to_string(c.P) + " ranks");
  return h;
}

}  // namespace nt::analysis
