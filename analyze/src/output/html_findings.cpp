// The findings table of the report page, each finding drawn on the matrix beside it: the matrix of
// the longest length in small (at most kThumb cells per side, ranks ordered as the page's matrix),
// grey by delay, the cells the finding claims in red. A finding of 32 hosts is then seen at a
// glance (a row, a cross, a block), and the hosts' list is collapsed into runs.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "nt/analysis/html.hpp"
#include "nt/dataset.hpp"
#include "nt/error.hpp"
#include "nt/units.hpp"
#include "html_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis::html_parts {
namespace {

constexpr int kThumb = 48;      // cells per side of a finding's picture, at most
constexpr int kThumbSide = 96;  // its side on the page, px

std::string esc(const std::string& s) { return text::xml_escape(s); }

// The matrix in small: per cell (row: senders' bin, column: receivers' bin) the log of the
// geometric mean delay (NaN: none), the bin of every rank, and each bin's rank count.
struct Small {
  int n = 0;
  std::vector<double> log_delay;
  std::vector<int> bin_of, size;
  std::int64_t length = 0;
};

Small small_matrix(const Report& r) {
  Small s;
  std::unique_ptr<Dataset> d;
  try {
    d = open_dataset(r.source);
  } catch (const Error&) {
    return s;
  }
  const int P = d->ranks();
  if (P != r.topology.P || d->count() == 0) return s;
  std::size_t kmax = 0;
  for (std::size_t k = 0; k < d->count(); ++k)
    if (d->lengths()[k] > d->lengths()[kmax]) kmax = k;
  s.length = d->lengths()[kmax];
  const Matrix m = d->matrix(kmax);
  const auto order = topology_order(r.topology, P);
  s.n = std::min(P, kThumb);
  s.bin_of.assign(static_cast<std::size_t>(P), 0);
  s.size.assign(static_cast<std::size_t>(s.n), 0);
  for (int q = 0; q < P; ++q) {
    const int b = static_cast<int>(static_cast<long long>(q) * s.n / P);
    s.bin_of[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])] = b;
    ++s.size[static_cast<std::size_t>(b)];
  }
  const auto N = static_cast<std::size_t>(s.n);
  std::vector<double> sum(N * N, 0.0);
  std::vector<int> count(N * N, 0);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) {
      const double v = m.at(i, j);
      if (i == j || !(v > 0) || !std::isfinite(v)) continue;
      const std::size_t c = static_cast<std::size_t>(s.bin_of[static_cast<std::size_t>(i)]) * N +
                            static_cast<std::size_t>(s.bin_of[static_cast<std::size_t>(j)]);
      sum[c] += std::log(v);
      ++count[c];
    }
  s.log_delay.assign(N * N, std::nan(""));
  for (std::size_t c = 0; c < N * N; ++c)
    if (count[c] > 0) s.log_delay[c] = sum[c] / count[c];
  return s;
}

// The share of each cell that a finding's ranks claim.
std::vector<double> rank_share(const Small& s, const Anomaly& a) {
  const auto N = static_cast<std::size_t>(s.n);
  std::vector<double> share(N * N, 0.0);
  const auto bin = [&](int r) { return static_cast<std::size_t>(s.bin_of[static_cast<std::size_t>(r)]); };
  std::vector<double> part(N, 0.0);  // per bin, the share of its ranks that are the finding's
  for (int r : a.ranks)
    if (r >= 0 && static_cast<std::size_t>(r) < s.bin_of.size())
      part[bin(r)] += 1.0 / static_cast<double>(s.size[bin(r)]);
  const bool send = a.direction != "receive", recv = a.direction != "send";
  for (std::size_t x = 0; x < N; ++x)
    for (std::size_t y = 0; y < N; ++y) {
      const double rows = send ? part[x] : 0.0, cols = recv ? part[y] : 0.0;
      share[x * N + y] = 1.0 - (1.0 - rows) * (1.0 - cols);
    }
  return share;
}

// Whether a finding claims the cells of its ranks (a slow rank, node or switch), not pairs alone.
bool claims_ranks(const Anomaly& a) {
  return a.kind == AnomalyKind::slow_rank || a.kind == AnomalyKind::slow_node || a.kind == AnomalyKind::slow_switch ||
         a.pairs.empty();
}

// The share of each cell of the small matrix that finding `a` claims: the cells its ranks send
// (direction "send"), receive ("receive") or both, and its pairs (a pair finding's, or the routes
// of others folded into a slow switch).
std::vector<double> claimed_share(const Small& s, const Anomaly& a) {
  const auto N = static_cast<std::size_t>(s.n);
  std::vector<double> share(N * N, 0.0);
  const auto bin = [&](int r) { return static_cast<std::size_t>(s.bin_of[static_cast<std::size_t>(r)]); };
  const auto cells = [&](std::size_t x, std::size_t y) {
    return static_cast<double>(s.size[x]) * static_cast<double>(s.size[y]);
  };
  if (claims_ranks(a)) share = rank_share(s, a);
  for (const auto& [i, j] : a.pairs)
    if (i >= 0 && j >= 0 && static_cast<std::size_t>(i) < s.bin_of.size() && static_cast<std::size_t>(j) < s.bin_of.size())
      share[bin(i) * N + bin(j)] += 1.0 / cells(bin(i), bin(j));
  for (double& x : share) x = std::min(x, 1.0);
  return share;
}

// The finding's picture: grey by delay (darker slower, the page's matrix scale), its cells red.
std::string finding_picture(const Small& s, const Anomaly& a, double lo, double hi) {
  const auto share = claimed_share(s, a);
  std::vector<std::uint8_t> rgb;
  rgb.reserve(share.size() * 3);
  for (std::size_t c = 0; c < share.size(); ++c) {
    const double v = s.log_delay[c];
    const double t = std::isfinite(v) ? std::clamp((v - lo) / (hi - lo), 0.0, 1.0) : 0.0;
    const double grey = std::isfinite(v) ? 235.0 - 135.0 * t : 255.0;
    const double red[3] = {225.0 - 70.0 * t, 40.0 - 25.0 * t, 40.0 - 25.0 * t};
    const double f = share[c];
    for (const double ch : red) rgb.push_back(static_cast<std::uint8_t>(std::lround(grey + f * (ch - grey))));
  }
  return fmt::format("<img class=\"where\" width=\"{}\" height=\"{}\" alt=\"its cells in red on the matrix\" "
                     "src=\"data:image/png;base64,{}\">",
                     kThumbSide, kThumbSide, base64(encode_png_rgb(s.n, s.n, rgb)));
}

// The page's matrix scale (scale_ends).
std::pair<double, double> scale_of(const Small& s) {
  std::vector<double> l;
  for (double v : s.log_delay)
    if (std::isfinite(v)) l.push_back(v);
  if (l.empty()) return {0.0, 1.0};
  std::sort(l.begin(), l.end());
  return scale_ends(l);
}

}  // namespace

std::string findings_table(const Report& r) {
  if (r.anomalies.empty()) return "<p>None: no rank, node or link is slower than its class predicts.</p>\n";
  const Small s = small_matrix(r);
  const auto [lo, hi] = scale_of(s);
  std::string o = "<table id=\"findings\"><tr><th>kind</th><th>score</th><th>direction</th><th>ranks</th><th>hosts</th>"
                  "<th>detail</th>";
  if (s.n > 0)
    o += fmt::format("<th title=\"the finding's cells in red on the matrix at {}, ranks ordered as below\">where</th>",
                     esc(format_bytes(s.length)));
  o += "</tr>\n";
  for (const auto& a : r.anomalies) {
    o += fmt::format("<tr><td>{}</td><td class=\"num\">{:.2f}x</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                     esc(name_of(a.kind)), a.score, esc(direction_word(a.direction)), esc(text_of_ranks(a.ranks)),
                     esc(text::hosts_text(a.hosts)), esc(a.detail));
    if (s.n > 0) o += "<td>" + finding_picture(s, a, lo, hi) + "</td>";
    o += "</tr>\n";
  }
  return o + "</table>\n";
}

}  // namespace nt::analysis::html_parts
