#include "nt/analysis/cube.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <thread>

#include "nt/error.hpp"
#include "nt/stats.hpp"
#include "nt/hosts.hpp"
#include "nt/validate.hpp"

namespace nt::analysis {

float analysis_value(double x) noexcept {
  const auto f = static_cast<float>(x);
  return is_good_delay(x) && std::isfinite(f) ? f : std::numeric_limits<float>::quiet_NaN();
}

namespace {

// The header of a cube of d: shape, lengths in ascending order (stable), file index per length.
Cube header_of(const Dataset& d) {
  Cube c;
  c.P = d.ranks();
  c.mode = d.params().mode;
  c.statistic = d.params().statistic;
  c.hosts = d.meta().hosts;
  c.source = d.source().string();
  if (c.P < 2) throw Error(c.source + ": at least 2 ranks are needed for an analysis (file has " + std::to_string(c.P) + ")");
  if (d.count() == 0) throw Error(c.source + ": the file holds no message length (empty run?)");
  c.file_index.resize(d.count());
  std::iota(c.file_index.begin(), c.file_index.end(), std::size_t{0});
  std::stable_sort(c.file_index.begin(), c.file_index.end(),
                   [&](std::size_t a, std::size_t b) { return d.lengths()[a] < d.lengths()[b]; });
  for (std::size_t k : c.file_index) c.lengths.push_back(d.lengths()[k]);
  if (!c.hosts.empty() && static_cast<int>(c.hosts.size()) != c.P) c.hosts.clear();
  return c;
}

}  // namespace

Cube load_cube(const Dataset& d) {
  Cube c = header_of(d);
  const auto PP = static_cast<std::size_t>(c.P) * static_cast<std::size_t>(c.P);
  c.v.resize(PP * c.count());
  const bool skip_diag = diagonal_is_zero(c.mode);
  for (std::size_t k = 0; k < c.count(); ++k) {
    const Matrix m = d.matrix(c.file_index[k]);
    c.bad.scan(m, c.file_index[k], skip_diag);
    // Bad delays (NaN, infinite, negative, absurd) are missing data for every analysis.
    std::transform(m.values().begin(), m.values().end(), c.v.begin() + static_cast<std::ptrdiff_t>(k * PP),
                   analysis_value);
  }
  c.file_index.clear();
  return c;
}

Cube open_cube(std::shared_ptr<const Dataset> d) {
  Cube c = header_of(*d);
  const bool skip_diag = diagonal_is_zero(c.mode);
  const auto N = static_cast<std::size_t>(c.P);
  const auto rb = static_cast<int>(std::max<std::size_t>(1, (std::size_t{4} << 20) / (N * sizeof(double))));
  std::vector<double> buf;
  for (std::size_t k = 0; k < c.count(); ++k)
    for (int r0 = 0; r0 < c.P; r0 += rb) {
      const int nr = std::min(rb, c.P - r0);
      buf.resize(static_cast<std::size_t>(nr) * N);
      d->block(c.file_index[k], r0, nr, 0, c.P, buf.data());
      c.bad.scan_rows(buf.data(), c.P, r0, nr, c.file_index[k], skip_diag);
    }
  c.file = std::move(d);
  return c;
}

std::vector<std::pair<std::size_t, std::size_t>> common_lengths(const Cube& a, const Cube& b) {
  std::vector<std::pair<std::size_t, std::size_t>> common;
  for (std::size_t i = 0, j = 0; i < a.lengths.size() && j < b.lengths.size();) {
    if (a.lengths[i] < b.lengths[j]) ++i;
    else if (b.lengths[j] < a.lengths[i]) ++j;
    else common.emplace_back(i++, j++);
  }
  return common;
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

const float* Cube::rows(std::size_t k, int r0, int r1, std::vector<float>& buf) const {
  const auto N = static_cast<std::size_t>(P);
  if (!file) return v.data() + (k * N + static_cast<std::size_t>(r0)) * N;
  buf.resize(static_cast<std::size_t>(r1 - r0) * N);
  block(k, r0, r1, 0, P, buf.data());
  return buf.data();
}

void Cube::block(std::size_t k, int r0, int r1, int c0, int c1, float* out) const {
  if (r1 <= r0 || c1 <= c0) return;
  const auto N = static_cast<std::size_t>(P), nc = static_cast<std::size_t>(c1 - c0);
  if (!file) {
    for (int i = r0; i < r1; ++i) {
      const float* src = v.data() + (k * N + static_cast<std::size_t>(i)) * N + static_cast<std::size_t>(c0);
      std::copy(src, src + nc, out + static_cast<std::size_t>(i - r0) * nc);
    }
    return;
  }
  // Read in pieces of at most 4 MiB of doubles (one scratch buffer per thread, kept: a fresh
  // buffer per call costs its page faults every time), converted as load_cube does.
  const auto rb = static_cast<int>(std::max<std::size_t>(1, (std::size_t{4} << 20) / (nc * sizeof(double))));
  thread_local std::vector<double> tmp;
  for (int a = r0; a < r1; a += rb) {
    const int nr = std::min(rb, r1 - a);
    if (tmp.size() < static_cast<std::size_t>(nr) * nc) tmp.resize(static_cast<std::size_t>(nr) * nc);
    file->block(file_index[k], a, nr, c0, c1 - c0, tmp.data());
    std::transform(tmp.begin(), tmp.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(nr) * nc),
                   out + static_cast<std::size_t>(a - r0) * nc, analysis_value);
  }
}

std::size_t block_bytes() {
  if (const char* e = std::getenv("NT_ANALYZE_BLOCK_BYTES")) {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(e, &end, 10);
    if (end != e && *end == '\0' && x > 0) return static_cast<std::size_t>(x);
  }
  return std::size_t{128} << 20;
}

int rows_per_block(int P, std::size_t bytes_per_row) {
  const std::size_t r = block_bytes() / std::max<std::size_t>(1, bytes_per_row);
  return static_cast<int>(std::clamp<std::size_t>(r, 1, static_cast<std::size_t>(std::max(1, P))));
}

double population_median(std::vector<double>& x) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  constexpr std::size_t kMax = kPopulationSample;
  if (x.size() > kMax) {
    const std::size_t n = x.size();
    for (std::size_t q = 0; q < kMax; ++q) x[q] = x[q * n / kMax];
    x.resize(kMax);
  }
  return median_inplace(x);
}

double float_median(std::vector<float>& x) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  // As nt::median_inplace: the middle value, or the mean of the two middle ones (in double).
  const std::size_t n = x.size();
  const auto mid = x.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(x.begin(), mid, x.end());
  const auto upper = static_cast<double>(*mid);
  if (n % 2 == 1) return upper;
  const auto lower = static_cast<double>(*std::max_element(x.begin(), mid));
  return lower + (upper - lower) / 2.0;
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
