// Progress on stderr (rank 0): a bar with ETA on a terminal, a plain line every 10 s otherwise.
// The ETA weights the lengths still to come by their predicted time (predict_time).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "run.hpp"

namespace nt::measure {

namespace {
// Under mpiexec a rank's stderr is a pipe to the launcher even when the user watches a terminal,
// so "auto" also takes an interactive-looking environment (TERM set, not in a batch job).
bool looks_interactive() {
  if (isatty(STDERR_FILENO)) return true;
  const char* term = std::getenv("TERM");
  if (!term || std::string(term).empty() || std::string(term) == "dumb") return false;
  for (const char* batch : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID", "FLUX_JOB_ID"})
    if (std::getenv(batch)) return false;
  return true;
}
}  // namespace

Progress::Progress(ProgressStyle style, const std::vector<std::int64_t>& lengths)
    : enabled_(style != ProgressStyle::none),
      tty_(style == ProgressStyle::bar || (style == ProgressStyle::automatic && looks_interactive())),
      lengths_(lengths) {
  start_ = last_ = mark_ = MPI_Wtime();
}

double predict_time(const std::vector<std::pair<std::int64_t, double>>& done,
                    const std::vector<std::int64_t>& lengths) {
  if (done.empty()) return -1;
  // Least squares of d = c0 + c1 * L, both non-negative.
  double n = 0, sl = 0, sd = 0, sll = 0, sld = 0;
  for (const auto& [l, d] : done) {
    const auto x = static_cast<double>(l);
    n += 1;
    sl += x;
    sd += d;
    sll += x * x;
    sld += x * d;
  }
  const double var = sll - sl * sl / n;
  double c0 = 0, c1 = 0;
  if (var > 0 && n >= 2) {
    c1 = (sld - sl * sd / n) / var;
    c0 = (sd - c1 * sl) / n;
    if (c1 < 0) {
      c1 = 0;
      c0 = sd / n;
    } else if (c0 < 0) {
      c0 = 0;
      c1 = sld / sll;
    }
  } else {
    // One length (or one size) seen: assume latency and bandwidth cost the same at 16 KiB, a
    // typical crossover, until longer lengths tell.
    const double l = sl / n, d = sd / n;
    c1 = d / (l + 16384.0);
    c0 = c1 * 16384.0;
  }
  double t = 0;
  for (auto l : lengths) t += c0 + c1 * static_cast<double>(l);
  return t;
}

namespace {
std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const auto t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
                   : fmt::format("{}:{:02}", t / 60, t % 60);
}
}  // namespace

void Progress::update(std::size_t k, std::int64_t length) {
  if (!enabled_) return;
  // Weighted by predicted time: the time of each length so far, fitted as a + b * length,
  // predicts the lengths still to come (a geometric sweep's last lengths dominate its time).
  const double now = MPI_Wtime();
  done_.emplace_back(length, now - mark_);
  mark_ = now;
  const std::vector<std::int64_t> rest(lengths_.begin() + static_cast<std::ptrdiff_t>(k + 1), lengths_.end());
  show(k, length, now, rest.empty() ? 0.0 : predict_time(done_, rest), k + 1 == lengths_.size());
}

void Progress::within(std::size_t k, double fraction) {
  if (!enabled_ || !(fraction > 0.0) || fraction >= 1.0) return;
  const double now = MPI_Wtime();
  if (now - last_ < (tty_ ? 0.2 : 10.0)) return;
  // This length at its pace so far, the lengths after it as update() predicts them (with this
  // length's projected time among the lengths done).
  const double so_far = now - mark_, projected = so_far / fraction;
  auto done = done_;
  done.emplace_back(lengths_[k], projected);
  const std::vector<std::int64_t> rest(lengths_.begin() + static_cast<std::ptrdiff_t>(k + 1), lengths_.end());
  show(k, lengths_[k], now, projected - so_far + (rest.empty() ? 0.0 : predict_time(done, rest)), false);
}

void Progress::show(std::size_t k, std::int64_t length, double now, double eta, bool last) {
  const double elapsed = now - start_;
  const double frac = eta >= 0 && elapsed + eta > 0 ? elapsed / (elapsed + eta) : 0.0;
  const std::size_t n = lengths_.size();
  if (tty_) {
    if (now - last_ < 0.2 && !last) return;
    const int width = 30, fill = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%  length %lld (%zu/%zu)  elapsed %s  ETA %s   ",
                 std::string(static_cast<std::size_t>(fill), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - fill), '.').c_str(), static_cast<int>(frac * 100),
                 static_cast<long long>(length), k + 1, n, clock_text(elapsed).c_str(), clock_text(eta).c_str());
  } else {
    if (now - last_ < 10.0 && !last) return;
    std::fprintf(stderr, "network_test: %3d%% done, length %lld (%zu/%zu), elapsed %s, ETA %s\n",
                 static_cast<int>(frac * 100), static_cast<long long>(length), k + 1, n, clock_text(elapsed).c_str(),
                 clock_text(eta).c_str());
  }
  std::fflush(stderr);
  last_ = now;
}

void Progress::finish() {
  if (enabled_ && tty_) std::fprintf(stderr, "\n");
}

}  // namespace nt::measure
