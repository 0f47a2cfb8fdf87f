#include "nt/analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/stats.hpp"
#include "nt/units.hpp"
#include "text_util.hpp"

namespace nt::analysis {
namespace {

using text::lengths_text;
using text::num;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string ranks_text(const std::vector<int>& r, std::size_t max = 12) { return text::ranks_text(r, max); }


// Median of the finite values (x is reordered); NaN when none.
double finite_median(std::vector<double>& x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double e) { return !std::isfinite(e); }), x.end());
  return x.empty() ? kNaN : population_median(x);
}

double finite_sigma(std::vector<double>& x) { return population_spread(x).sigma; }

// A copy of `c` holding only the given lengths (indices into c.lengths, ascending).
Cube restrict_lengths(const Cube& c, const std::vector<std::size_t>& ks) {
  Cube r = cube_header(c);
  r.lengths.clear();
  const auto PP = static_cast<std::size_t>(c.P) * static_cast<std::size_t>(c.P);
  r.v.reserve(PP * ks.size());
  for (std::size_t k : ks) {
    r.lengths.push_back(c.lengths[k]);
    r.v.insert(r.v.end(), c.v.begin() + static_cast<std::ptrdiff_t>(k * PP),
               c.v.begin() + static_cast<std::ptrdiff_t>((k + 1) * PP));
  }
  return r;
}

// Length bands of the comparison: thirds (at least 3 lengths each), as the topology's.
std::vector<std::pair<std::size_t, std::size_t>> bands_of(std::size_t K) {
  const std::size_t n = std::clamp<std::size_t>(K / 3, 1, 3);
  std::vector<std::pair<std::size_t, std::size_t>> b;
  for (std::size_t i = 0; i < n; ++i) b.emplace_back(K * i / n, K * (i + 1) / n);
  return b;
}

// Per length, an effect (log ratio) and its z-score; decides whether it is a change: at least
// log(min_ratio) and min_sigmas either way, at half of the lengths of some band (at least 2 when
// the band has 2). Returns +1 (slower), -1 (faster) or 0, with the lengths, ratio and sigmas.
struct Decision {
  int sign = 0;
  std::vector<std::size_t> ks;
  double ratio = 1.0, sigmas = 0.0;
};
Decision decide(const std::vector<double>& effect, const std::vector<double>& z, double min_log, double min_sigmas,
                const std::vector<std::pair<std::size_t, std::size_t>>& bands) {
  Decision best;
  for (int sign : {+1, -1}) {
    auto flagged = [&](std::size_t k) {
      return std::isfinite(effect[k]) && std::isfinite(z[k]) && sign * effect[k] >= min_log && sign * z[k] >= min_sigmas;
    };
    bool shows = false;
    for (auto [k0, k1] : bands) {
      std::size_t n = 0;
      for (std::size_t k = k0; k < k1; ++k) n += flagged(k) ? 1 : 0;
      const std::size_t len = k1 - k0;
      const std::size_t need = std::max<std::size_t>((len + 1) / 2, std::min<std::size_t>(2, len));
      if (n >= need) shows = true;
    }
    if (!shows) continue;
    Decision d;
    d.sign = sign;
    std::vector<double> e, s;
    for (std::size_t k = 0; k < effect.size(); ++k)
      if (flagged(k)) d.ks.push_back(k), e.push_back(effect[k]), s.push_back(std::fabs(z[k]));
    d.ratio = std::exp(median_inplace(e));
    d.sigmas = median_inplace(s);
    if (best.sign == 0 || d.ks.size() > best.ks.size()) best = d;
  }
  return best;
}

// Host -> group at one level of a report's topology (the group of the host's first rank).
std::vector<int> host_groups_at(const Topology& t, std::size_t level, const std::vector<std::vector<int>>& ranks) {
  std::vector<int> g;
  for (const auto& r : ranks) g.push_back(t.levels[level].group_of[static_cast<std::size_t>(r.front())]);
  return g;
}

// The switch partition of the common hosts in one run: the finest level whose groups hold several
// of the hosts without holding them all (labels per host), or all zeros when there is none.
std::vector<int> switch_partition(const Topology& t, const std::vector<std::vector<int>>& ranks) {
  const std::size_t H = ranks.size();
  for (std::size_t l = 0; l < t.levels.size(); ++l) {
    const auto g = host_groups_at(t, l, ranks);
    const std::set<int> distinct(g.begin(), g.end());
    if (distinct.size() == H) continue;  // the node level: every host its own group
    if (distinct.size() <= 1) break;
    return g;
  }
  return std::vector<int>(H, 0);
}

std::vector<std::vector<int>> partition_of(const std::vector<int>& labels) {
  std::map<int, std::vector<int>> m;
  for (std::size_t i = 0; i < labels.size(); ++i) m[labels[i]].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> p;
  for (auto& [l, v] : m) p.push_back(std::move(v));
  std::sort(p.begin(), p.end());
  return p;
}

std::string host_list(const std::vector<std::string>& h, std::size_t max = 8) {
  if (h.size() <= max) return fmt::format("{}", fmt::join(h, ","));
  std::vector<std::string> head(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(max));
  return fmt::format("{},... ({} hosts)", fmt::join(head, ","), h.size());
}

}  // namespace

std::string compare_input(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    const auto f = std::filesystem::path(path) / "one_to_one_median.nc";
    if (!std::filesystem::exists(f, ec))
      throw FileError(path, "is a directory without one_to_one_median.nc: name the delay file to compare");
    return f.string();
  }
  return path;
}

Comparison compare_cubes(const Cube& B0, const Cube& C0, const CompareOptions& opt) {
  Comparison out;
  out.baseline = B0.source;
  out.current = C0.source;
  out.mode = C0.mode;
  out.statistic = C0.statistic;
  out.P_baseline = B0.P;
  out.P_current = C0.P;
  if (B0.mode != C0.mode)
    throw UsageError(fmt::format("{} is mode {}, {} is mode {}: compare two runs of one mode", B0.source,
                                 mode_name(B0.mode), C0.source, mode_name(C0.mode)));
  if (B0.statistic != C0.statistic)
    throw UsageError(fmt::format("{} holds the {}, {} the {}: compare one statistic", B0.source,
                                 statistic_name(B0.statistic), C0.source, statistic_name(C0.statistic)));
  if (!(opt.min_ratio > 1.0) || !(opt.min_sigmas > 0))
    throw UsageError("compare: --min-ratio must exceed 1 and --min-sigmas 0");

  // Common lengths: the two runs are analysed and compared on these only.
  std::vector<std::size_t> kb, kc;
  for (std::size_t i = 0, j = 0; i < B0.lengths.size() && j < C0.lengths.size();) {
    if (B0.lengths[i] < C0.lengths[j]) ++i;
    else if (C0.lengths[j] < B0.lengths[i]) ++j;
    else {
      out.lengths.push_back(B0.lengths[i]);
      kb.push_back(i++), kc.push_back(j++);
    }
  }
  if (out.lengths.empty())
    throw UsageError(fmt::format("{} ({}) and {} ({}) have no message length in common", B0.source,
                                 lengths_text(B0.lengths), C0.source, lengths_text(C0.lengths)));
  const bool same_b = kb.size() == B0.lengths.size(), same_c = kc.size() == C0.lengths.size();
  std::optional<Cube> Bs, Cs;
  if (!same_b) Bs = restrict_lengths(B0, kb);
  if (!same_c) Cs = restrict_lengths(C0, kc);
  const Cube& B = same_b ? B0 : *Bs;
  const Cube& C = same_c ? C0 : *Cs;
  if (!same_b || !same_c)
    out.notes.push_back(fmt::format("compared at the {} common lengths ({} has {}, {} has {})", out.lengths.size(),
                                    B0.source, B0.lengths.size(), C0.source, C0.lengths.size()));

  ReportOptions ob = opt.report, oc = opt.report;
  ob.hosts_file = opt.baseline_hosts;
  oc.hosts_file = opt.current_hosts;
  out.base = make_report(B, ob);
  out.cur = make_report(C, oc);
  std::vector<std::string> hb = out.base.hosts, hc = out.cur.hosts;

  // ---- match ranks: by host name, else by rank number when the node groups agree ----
  if (hb.empty() || hc.empty()) {
    out.by_host = false;
    const std::string which =
        hb.empty() && hc.empty() ? "neither run has" : (hb.empty() ? B.source : C.source) + " has no";
    if (B.P != C.P)
      throw UsageError(fmt::format("{} host names (no <prefix>_hosts.txt) and the runs have {} and {} ranks: ranks "
                                   "cannot be matched; give --baseline-hosts / --current-hosts",
                                   which, B.P, C.P));
    const auto& gb = out.base.topology.levels.front().group_of;
    const auto& gc = out.cur.topology.levels.front().group_of;
    if (partition_of(gb) != partition_of(gc))
      throw UsageError(fmt::format("{} host names and the node groups of the two runs differ: the placement may "
                                   "differ, so ranks cannot be matched by number; give --baseline-hosts / "
                                   "--current-hosts",
                                   which));
    if (hb.empty() && hc.empty()) {
      for (int r = 0; r < B.P; ++r) hb.push_back(fmt::format("group{}", gb[static_cast<std::size_t>(r)]));
      hc = hb;
      out.notes.push_back("no host names in either run: ranks matched by number, the node groups found in the "
                          "delays (the same in both runs) stand for the hosts");
    } else {
      (hb.empty() ? hb : hc) = hb.empty() ? hc : hb;
      out.notes.push_back(fmt::format("{} host names: ranks matched by number (the node groups found in the "
                                      "delays are the same in both runs)",
                                      which));
    }
  }
  std::map<std::string, std::vector<int>> rb, rc;
  for (int r = 0; r < B.P; ++r) rb[hb[static_cast<std::size_t>(r)]].push_back(r);
  for (int r = 0; r < C.P; ++r) rc[hc[static_cast<std::size_t>(r)]].push_back(r);
  for (const auto& [h, r] : rb) {
    if (rc.count(h)) {
      out.hosts.push_back(h);
      out.ranks_baseline.push_back(r);
      out.ranks_current.push_back(rc[h]);
      if (r != rc[h]) out.placement_differs = true;
    } else {
      out.missing.push_back(h);
    }
  }
  for (const auto& [h, r] : rc)
    if (!rb.count(h)) out.added.push_back(h);
  if (out.hosts.empty())
    throw UsageError(fmt::format("{} and {} have no host in common ({} vs {})", B.source, C.source,
                                 host_list(out.missing, 3), host_list(out.added, 3)));
  if (out.placement_differs) out.notes.push_back("the rank placement differs: ranks matched through the host names");

  const std::size_t H = out.hosts.size();
  const std::size_t K = out.lengths.size();
  const std::size_t HH = H * H;
  for (std::size_t a = 0; a < H; ++a)
    if (out.ranks_baseline[a].size() != out.ranks_current[a].size()) {
      out.notes.push_back("some hosts hold a different number of ranks in the two runs: compared by the median over "
                          "their rank pairs");
      break;
    }

  // ---- per length: log(current / baseline) of each host pair's median delay ----
  std::vector<float> L(K * HH, std::numeric_limits<float>::quiet_NaN());
  auto host_median = [&](const Cube& c, std::size_t k, const std::vector<int>& ra, const std::vector<int>& rbb,
                         std::vector<double>& buf) {
    buf.clear();
    for (int i : ra)
      for (int j : rbb)
        if (i != j) {
          const double x = c.at(k, i, j);
          if (Cube::usable(x)) buf.push_back(x);
        }
    return buf.empty() ? kNaN : median_inplace(buf);
  };
  parallel_for(H, [&](std::size_t a0, std::size_t a1) {
    std::vector<double> buf;
    for (std::size_t a = a0; a < a1; ++a)
      for (std::size_t b = 0; b < H; ++b)
        for (std::size_t k = 0; k < K; ++k) {
          const double x = host_median(B, k, out.ranks_baseline[a], out.ranks_baseline[b], buf);
          const double y = host_median(C, k, out.ranks_current[a], out.ranks_current[b], buf);
          if (std::isfinite(x) && std::isfinite(y)) L[k * HH + a * H + b] = static_cast<float>(std::log(y / x));
        }
  });
  out.ratio_matrix.assign(HH, std::numeric_limits<float>::quiet_NaN());
  {
    std::vector<double> v;
    for (std::size_t p = 0; p < HH; ++p) {
      v.clear();
      for (std::size_t k = 0; k < K; ++k) v.push_back(L[k * HH + p]);
      const double m = finite_median(v);
      if (std::isfinite(m)) out.ratio_matrix[p] = static_cast<float>(std::exp(m));
    }
  }

  // Classes of host pairs from the baseline's topology (representative ranks).
  const Topology& tb = out.base.topology;
  const int NC = tb.class_count();
  std::vector<int> cls(HH, 0);
  for (std::size_t a = 0; a < H; ++a)
    for (std::size_t b = 0; b < H; ++b)
      cls[a * H + b] = a == b ? 0 : tb.pair_class(out.ranks_baseline[a].front(), out.ranks_baseline[b].front());

  const double min_log = std::log(opt.min_ratio);
  const auto bands = bands_of(K);
  std::vector<std::vector<double>> class_shift(static_cast<std::size_t>(NC), std::vector<double>(K, kNaN));
  std::vector<std::vector<double>> class_sigma(static_cast<std::size_t>(NC), std::vector<double>(K, kNaN));
  std::vector<std::vector<double>> send(K, std::vector<double>(H, kNaN)), recv = send, intra = send;
  std::vector<double> send_sigma(K, kNaN), recv_sigma(K, kNaN), intra_sigma(K, kNaN);
  std::vector<float> R(K * HH, std::numeric_limits<float>::quiet_NaN());  // link residuals

  // Switch groups of the baseline (hosts), for the blocks of links between two of them.
  const std::vector<int> sw = H >= 3 ? switch_partition(tb, out.ranks_baseline) : std::vector<int>(H, 0);
  const std::size_t NS = sw.empty() ? 0 : static_cast<std::size_t>(*std::max_element(sw.begin(), sw.end())) + 1;
  std::vector<std::vector<double>> block(K, std::vector<double>(NS * NS, kNaN));
  std::vector<double> block_floor(K, kNaN);  // noise of a block's median from its links' noise
  parallel_for(K, [&](std::size_t k0, std::size_t k1) {
    std::vector<double> v;
    for (std::size_t k = k0; k < k1; ++k) {
      const float* Lk = &L[k * HH];
      // Class shift: the class's median change (the diagonal is the intra-host class) when most
      // of its links (3/4) moved with it; otherwise part of the class changed (a
      // switch's uplink, say) and the shift is that of the links that did not change (within
      // tol of 0; when they are a quarter or more), so that the changed part is found below
      // instead of the unchanged part.
      std::vector<double> shift(static_cast<std::size_t>(NC), kNaN);
      for (int c = 0; c < NC; ++c) {
        v.clear();
        for (std::size_t p = 0; p < HH; ++p)
          if (cls[p] == c && std::isfinite(Lk[p])) v.push_back(Lk[p]);
        const std::size_t n = v.size();
        // The class's change: the median over the hosts of each host's median change over its
        // links of the class (both directions): one changed host moves its own median only, even
        // when its links are half of the class (4 hosts on one switch).
        std::vector<double> w, hv;
        for (std::size_t a = 0; a < H; ++a) {
          hv.clear();
          for (std::size_t b = 0; b < H; ++b) {
            if (cls[a * H + b] == c) hv.push_back(Lk[a * H + b]);
            if (b != a && cls[b * H + a] == c) hv.push_back(Lk[b * H + a]);
          }
          w.push_back(finite_median(hv));
        }
        double m = finite_median(w);
        if (n > 0) {
          // Half the smallest change reported (the spread of a class that changed in part is no
          // measure of its noise: two clusters of links make it large).
          const double tol = 0.5 * min_log;
          std::size_t near_m = 0;
          w.clear();
          for (double x : v) {
            if (std::fabs(x - m) <= tol) ++near_m;
            if (std::fabs(x) <= tol) w.push_back(x);
          }
          if (4 * near_m < 3 * n && 4 * w.size() >= n) m = finite_median(w);
        }
        shift[static_cast<std::size_t>(c)] = m;
        class_shift[static_cast<std::size_t>(c)][k] = m;
      }
      // Switch blocks: the median change of the links from switch group X to Y (X != Y) beyond the
      // class shift; the hosts' effects and the links are then judged within their block.
      std::vector<double> blk(NS * NS, 0.0);
      if (NS > 1) {
        std::vector<std::vector<double>> vals(NS * NS);
        for (std::size_t a = 0; a < H; ++a)
          for (std::size_t b = 0; b < H; ++b) {
            const std::size_t X = static_cast<std::size_t>(sw[a]), Y = static_cast<std::size_t>(sw[b]);
            const double s0 = shift[static_cast<std::size_t>(cls[a * H + b])];
            if (X != Y && std::isfinite(s0)) vals[X * NS + Y].push_back(double(Lk[a * H + b]) - s0);
          }
        for (std::size_t q = 0; q < NS * NS; ++q) {
          const double m = finite_median(vals[q]);
          blk[q] = std::isfinite(m) ? m : 0.0;
          block[k][q] = std::isfinite(m) ? m : kNaN;
        }
      }
      auto e = [&](std::size_t a, std::size_t b) {
        const double s0 = shift[static_cast<std::size_t>(cls[a * H + b])];
        const double bl = NS > 1 && a != b ? blk[static_cast<std::size_t>(sw[a]) * NS + static_cast<std::size_t>(sw[b])] : 0.0;
        return std::isfinite(s0) ? double(Lk[a * H + b]) - s0 - bl : kNaN;
      };
      // One step of median polish over the links between hosts: sender, then receiver effect.
      for (std::size_t a = 0; a < H; ++a) {
        v.clear();
        for (std::size_t b = 0; b < H; ++b)
          if (b != a) v.push_back(e(a, b));
        send[k][a] = finite_median(v);
      }
      for (std::size_t b = 0; b < H; ++b) {
        v.clear();
        for (std::size_t a = 0; a < H; ++a)
          if (a != b && std::isfinite(send[k][a])) v.push_back(e(a, b) - send[k][a]);
        recv[k][b] = finite_median(v);
      }
      for (std::size_t a = 0; a < H; ++a)
        for (std::size_t b = 0; b < H; ++b)
          if (a != b && std::isfinite(send[k][a]) && std::isfinite(recv[k][b]))
            R[k * HH + a * H + b] = static_cast<float>(e(a, b) - send[k][a] - recv[k][b]);
      // Noise of the links: per class, robust sigma of the residuals.
      std::vector<double> all;
      for (int c = 0; c < NC; ++c) {
        v.clear();
        for (std::size_t p = 0; p < HH; ++p)
          if (cls[p] == c && p / H != p % H) v.push_back(R[k * HH + p]);
        all.insert(all.end(), v.begin(), v.end());
        class_sigma[static_cast<std::size_t>(c)][k] = finite_sigma(v);
      }
      const double link_sigma = finite_sigma(all);
      if (NS > 1) {
        std::vector<std::size_t> count(NS, 0);
        for (int g : sw) ++count[static_cast<std::size_t>(g)];
        const std::size_t smallest = *std::min_element(count.begin(), count.end());
        block_floor[k] = 1.2533 * link_sigma / std::sqrt(double(std::max<std::size_t>(1, smallest * smallest)));
      }
      // Noise of the host effects: their spread over the hosts, at least what the links' noise
      // leaves in a median over H-1 of them.
      const double floor = std::isfinite(link_sigma) && H > 1 ? 1.2533 * link_sigma / std::sqrt(double(H - 1)) : 0.0;
      v.assign(send[k].begin(), send[k].end());
      send_sigma[k] = std::max(finite_sigma(v), floor);
      v.assign(recv[k].begin(), recv[k].end());
      recv_sigma[k] = std::max(finite_sigma(v), floor);
      for (std::size_t a = 0; a < H; ++a) intra[k][a] = e(a, a);
      v.assign(intra[k].begin(), intra[k].end());
      const double si = finite_sigma(v);
      intra_sigma[k] = std::max(si, 1e-3);
      if (!std::isfinite(class_sigma[0][k])) class_sigma[0][k] = si;  // the intra-host class: its hosts' spread
    }
  });

  // ---- classes ----
  for (int c = 0; c < NC; ++c) {
    std::size_t n = 0;
    for (std::size_t p = 0; p < HH; ++p)
      if (cls[p] == c && (p / H != p % H || c == 0)) {
        const bool diag = p / H == p % H;
        if (diag && out.ranks_baseline[p / H].size() < 2) continue;
        ++n;
      }
    if (n == 0) continue;
    ClassChange cc;
    cc.name = tb.class_name(c);
    cc.host_pairs = n;
    std::vector<double> v = class_shift[static_cast<std::size_t>(c)];
    const double m = finite_median(v);
    cc.ratio = std::isfinite(m) ? std::exp(m) : kNaN;
    v = class_sigma[static_cast<std::size_t>(c)];
    const double s = finite_median(v);
    cc.noise = std::isfinite(s) ? std::expm1(s) : kNaN;
    out.classes.push_back(cc);
    // A whole class changed: judged on its size alone (a shift of every link has no peer to be
    // compared with), at half of the lengths of a band.
    const auto& sh = class_shift[static_cast<std::size_t>(c)];
    std::vector<double> z(K, kNaN);
    for (std::size_t k = 0; k < K; ++k) z[k] = std::isfinite(sh[k]) ? (sh[k] >= 0 ? 1e9 : -1e9) : kNaN;
    const Decision d = decide(sh, z, min_log, opt.min_sigmas, bands);
    if (d.sign != 0) {
      Finding f;
      f.kind = d.sign > 0 ? "class_slower" : "class_faster";
      f.ratio = d.ratio;
      for (std::size_t k : d.ks) f.lengths.push_back(out.lengths[k]);
      f.detail = fmt::format("every {} link is {:.2f}x {} (median over its {} host pairs)", cc.name,
                             d.sign > 0 ? d.ratio : 1.0 / d.ratio, d.sign > 0 ? "slower" : "faster", n);
      out.findings.push_back(f);
    }
  }

  // ---- nodes ----
  auto host_ranks = [&](Finding& f, std::size_t a) {
    f.hosts.push_back(out.hosts[a]);
    f.ranks_baseline.insert(f.ranks_baseline.end(), out.ranks_baseline[a].begin(), out.ranks_baseline[a].end());
    f.ranks_current.insert(f.ranks_current.end(), out.ranks_current[a].begin(), out.ranks_current[a].end());
  };
  if (H >= 3) {
    for (std::size_t a = 0; a < H; ++a) {
      std::vector<double> es(K), zs(K), er(K), zr(K), ei(K), zi(K);
      for (std::size_t k = 0; k < K; ++k) {
        es[k] = send[k][a], zs[k] = send[k][a] / send_sigma[k];
        er[k] = recv[k][a], zr[k] = recv[k][a] / recv_sigma[k];
        ei[k] = intra[k][a], zi[k] = intra[k][a] / intra_sigma[k];
      }
      const Decision ds = decide(es, zs, min_log, opt.min_sigmas, bands);
      const Decision dr = decide(er, zr, min_log, opt.min_sigmas, bands);
      const Decision di = out.ranks_baseline[a].size() >= 2 && out.ranks_current[a].size() >= 2
                              ? decide(ei, zi, min_log, opt.min_sigmas, bands)
                              : Decision{};
      if (ds.sign == 0 && dr.sign == 0 && di.sign == 0) continue;
      Finding f;
      host_ranks(f, a);
      if (ds.sign != 0 || dr.sign != 0) {
        const bool both = ds.sign != 0 && ds.sign == dr.sign;
        const Decision& d = both ? (ds.ks.size() >= dr.ks.size() ? ds : dr) : (ds.sign != 0 ? ds : dr);
        f.kind = d.sign > 0 ? "node_slower" : "node_faster";
        f.direction = both ? "both" : (ds.sign != 0 ? "sending" : "receiving");
        f.ratio = both ? std::sqrt(ds.ratio * dr.ratio) : d.ratio;
        f.sigmas = both ? std::min(ds.sigmas, dr.sigmas) : d.sigmas;
        std::set<std::size_t> ks(d.ks.begin(), d.ks.end());
        if (both) ks.insert(ds.ks.begin(), ds.ks.end()), ks.insert(dr.ks.begin(), dr.ks.end());
        for (std::size_t k : ks) f.lengths.push_back(out.lengths[k]);
        f.detail = fmt::format("node {} is {:.2f}x {} ({}; {:.0f} sigmas of the hosts' noise, at {} of {} lengths)",
                               out.hosts[a], d.sign > 0 ? f.ratio : 1.0 / f.ratio, d.sign > 0 ? "slower" : "faster",
                               both ? "sending and receiving"
                                    : (ds.sign != 0 ? "when sending: the links it sends on"
                                                    : "when receiving: the links it receives on"),
                               f.sigmas, f.lengths.size(), K);
        if (!both && ds.sign != 0 && dr.sign != 0)
          f.detail += fmt::format("; and {:.2f}x {} when receiving", dr.sign > 0 ? dr.ratio : 1.0 / dr.ratio,
                                  dr.sign > 0 ? "slower" : "faster");
        if (di.sign != 0)
          f.detail += fmt::format("; its intra-node links {:.2f}x {}", di.sign > 0 ? di.ratio : 1.0 / di.ratio,
                                  di.sign > 0 ? "slower" : "faster");
      } else {
        f.kind = di.sign > 0 ? "intra_node_slower" : "intra_node_faster";
        f.ratio = di.ratio;
        f.sigmas = di.sigmas;
        for (std::size_t k : di.ks) f.lengths.push_back(out.lengths[k]);
        f.detail = fmt::format("the links inside node {} are {:.2f}x {} ({:.0f} sigmas of the hosts' noise, at {} of "
                               "{} lengths)",
                               out.hosts[a], di.sign > 0 ? di.ratio : 1.0 / di.ratio, di.sign > 0 ? "slower" : "faster",
                               di.sigmas, f.lengths.size(), K);
      }
      out.findings.push_back(f);
    }
  } else {
    out.notes.push_back(fmt::format("{} common host(s): nodes cannot be compared with their peers; links and classes "
                                    "only",
                                    H));
  }

  // ---- switch blocks: the links between two switch groups ----
  if (NS > 1) {
    std::map<std::pair<std::size_t, std::size_t>, Decision> flagged;
    for (std::size_t X = 0; X < NS; ++X)
      for (std::size_t Y = 0; Y < NS; ++Y) {
        if (X == Y) continue;
        std::vector<double> ef(K), z(K);
        for (std::size_t k = 0; k < K; ++k) ef[k] = block[k][X * NS + Y], z[k] = ef[k] / block_floor[k];
        const Decision d = decide(ef, z, min_log, opt.min_sigmas, bands);
        if (d.sign != 0) flagged[{X, Y}] = d;
      }
    std::vector<std::vector<std::size_t>> members(NS);
    for (std::size_t a = 0; a < H; ++a) members[static_cast<std::size_t>(sw[a])].push_back(a);
    std::set<std::size_t> present;
    for (std::size_t X = 0; X < NS; ++X)
      if (!members[X].empty()) present.insert(X);
    auto names_of = [&](std::size_t X) {
      std::vector<std::string> n;
      for (std::size_t a : members[X]) n.push_back(out.hosts[a]);
      return host_list(n, 4);
    };
    auto block_finding = [&](const std::vector<std::pair<std::size_t, std::size_t>>& bs, int sign) {
      Finding f;
      std::vector<double> ratios, sig;
      std::set<std::size_t> ks;
      for (auto xy : bs) {
        const Decision& d = flagged.at(xy);
        ratios.push_back(d.ratio);
        sig.push_back(d.sigmas);
        ks.insert(d.ks.begin(), d.ks.end());
        flagged.erase(xy);
      }
      f.ratio = median_inplace(ratios);
      f.sigmas = median_inplace(sig);
      for (std::size_t k : ks) f.lengths.push_back(out.lengths[k]);
      f.kind = sign > 0 ? "switch_link_slower" : "switch_link_faster";
      return f;
    };
    // A switch group whose links to every other group changed alike (3 groups or more): its uplink.
    for (std::size_t X : present) {
      if (present.size() < 3) break;
      int sign = 0;
      bool all = true;
      for (std::size_t Y : present) {
        if (Y == X) continue;
        for (auto xy : {std::pair{X, Y}, std::pair{Y, X}}) {
          const auto it = flagged.find(xy);
          if (it == flagged.end() || (sign != 0 && it->second.sign != sign)) all = false;
          else sign = it->second.sign;
        }
      }
      if (!all) continue;
      std::vector<std::pair<std::size_t, std::size_t>> bs;
      for (std::size_t Y : present)
        if (Y != X) bs.emplace_back(X, Y), bs.emplace_back(Y, X);
      Finding f = block_finding(bs, sign);
      f.kind = sign > 0 ? "switch_slower" : "switch_faster";
      f.direction = "both";
      for (std::size_t a : members[X]) host_ranks(f, a);
      f.detail = fmt::format("every link between the switch group of {} and the other {} group(s) is {:.2f}x {} (median "
                             "{:.0f} sigmas): that switch or its uplink",
                             names_of(X), present.size() - 1, sign > 0 ? f.ratio : 1.0 / f.ratio,
                             sign > 0 ? "slower" : "faster", f.sigmas);
      out.findings.push_back(f);
    }
    // The links between two groups, one direction or both.
    while (!flagged.empty()) {
      const auto [X, Y] = flagged.begin()->first;
      const int sign = flagged.begin()->second.sign;
      const auto back = flagged.find({Y, X});
      const bool both = back != flagged.end() && back->second.sign == sign;
      std::vector<std::pair<std::size_t, std::size_t>> bs{{X, Y}};
      if (both) bs.emplace_back(Y, X);
      Finding f = block_finding(bs, sign);
      f.direction = both ? "both" : "one-way";
      for (std::size_t a : members[X]) host_ranks(f, a);
      for (std::size_t a : members[Y]) host_ranks(f, a);
      f.detail = fmt::format("the links from the switch group of {} {} that of {} are {:.2f}x {} ({}; median {:.0f} "
                             "sigmas): the switches or the path between them",
                             names_of(X), both ? "to and from" : "to", names_of(Y), sign > 0 ? f.ratio : 1.0 / f.ratio,
                             sign > 0 ? "slower" : "faster", both ? "both directions" : "this direction only", f.sigmas);
      out.findings.push_back(f);
    }
  }

  // ---- links ----
  if (H >= 3) {
    std::map<std::pair<std::size_t, std::size_t>, Decision> links;
    for (std::size_t a = 0; a < H; ++a)
      for (std::size_t b = 0; b < H; ++b) {
        if (a == b) continue;
        const int c = cls[a * H + b];
        std::vector<double> ef(K), z(K);
        for (std::size_t k = 0; k < K; ++k) {
          ef[k] = R[k * HH + a * H + b];
          z[k] = ef[k] / class_sigma[static_cast<std::size_t>(c)][k];
        }
        const Decision d = decide(ef, z, min_log, opt.min_sigmas, bands);
        if (d.sign != 0) links[{a, b}] = d;
      }
    // One finding per link (both directions together when they changed alike).
    struct LinkFinding {
      std::size_t a, b;
      int sign;
      Finding f;
    };
    std::vector<LinkFinding> found;
    for (const auto& [ab, d] : links) {
      const auto [a, b] = ab;
      const auto back = links.find({b, a});
      const bool both = back != links.end() && back->second.sign == d.sign;
      if (both && b < a) continue;  // reported with (b, a)
      Finding f;
      f.kind = d.sign > 0 ? "link_slower" : "link_faster";
      f.direction = both ? "both" : "one-way";
      host_ranks(f, a);
      host_ranks(f, b);
      f.ratio = both ? std::sqrt(d.ratio * back->second.ratio) : d.ratio;
      f.sigmas = both ? std::min(d.sigmas, back->second.sigmas) : d.sigmas;
      std::set<std::size_t> ks(d.ks.begin(), d.ks.end());
      if (both) ks.insert(back->second.ks.begin(), back->second.ks.end());
      for (std::size_t k : ks) f.lengths.push_back(out.lengths[k]);
      f.detail = fmt::format("link {} {} {} is {:.2f}x {} ({}; beyond what its nodes explain; {:.0f} sigmas of the "
                             "{} links' noise, at {} of {} lengths)",
                             out.hosts[a], both ? "<->" : "->", out.hosts[b], d.sign > 0 ? f.ratio : 1.0 / f.ratio,
                             d.sign > 0 ? "slower" : "faster", both ? "both directions" : "this direction only",
                             f.sigmas, tb.class_name(cls[a * H + b]), f.lengths.size(), K);
      found.push_back({a, b, d.sign, std::move(f)});
    }
    std::size_t listed = 0, changed = 0;
    for (std::size_t q = 0; q < found.size(); ++q) {
      ++changed;
      if (++listed <= opt.report.anomalies.max_links) out.findings.push_back(std::move(found[q].f));
    }
    if (changed > opt.report.anomalies.max_links)
      out.notes.push_back(fmt::format("{} changed links, the first {} listed", changed, opt.report.anomalies.max_links));
  }

  // ---- hosts missing or added ----
  for (const auto& h : out.missing) {
    Finding f;
    f.kind = "node_missing";
    f.hosts = {h};
    f.ranks_baseline = rb[h];
    f.detail = fmt::format("node {} ({} ranks in the baseline) is not in the current run", h, rb[h].size());
    out.findings.push_back(f);
  }
  for (const auto& h : out.added) {
    Finding f;
    f.kind = "node_added";
    f.hosts = {h};
    f.ranks_current = rc[h];
    f.detail = fmt::format("node {} ({} ranks) is new in the current run", h, rc[h].size());
    out.findings.push_back(f);
  }

  // ---- topology: the switch groups of the common hosts ----
  if (H >= 3 && out.by_host) {
    const auto sb = switch_partition(out.base.topology, out.ranks_baseline);
    const auto sc = switch_partition(out.cur.topology, out.ranks_current);
    if (partition_of(sb) != partition_of(sc)) {
      // Each baseline switch maps to the current group holding most of its hosts; a host elsewhere moved.
      std::map<int, std::map<int, int>> overlap;
      for (std::size_t a = 0; a < H; ++a) ++overlap[sb[a]][sc[a]];
      std::map<int, int> image;
      for (const auto& [g, m] : overlap)
        image[g] = std::max_element(m.begin(), m.end(), [](auto& x, auto& y) { return x.second < y.second; })->first;
      // Hosts in a delay finding (node or link): their own switch group may come from that change
      // (a changed node or link looks like a host behind a switch of its own).
      std::vector<char> in_delay_finding(H, 0);
      for (const auto& f : out.findings)
        if (f.kind.rfind("node_", 0) == 0 || f.kind.rfind("link_", 0) == 0 || f.kind.rfind("intra_", 0) == 0 ||
            f.kind.rfind("switch_", 0) == 0)
          for (const auto& h : f.hosts)
            for (std::size_t a = 0; a < H; ++a)
              if (out.hosts[a] == h) in_delay_finding[a] = 1;
      auto mates = [&](const std::vector<int>& part, std::size_t a) {
        std::vector<std::string> m;
        for (std::size_t x = 0; x < H; ++x)
          if (x != a && part[x] == part[a]) m.push_back(out.hosts[x]);
        return m;
      };
      // A host in another group moved when it joined other hosts' group, or when nothing else
      // changed about it; alone now and slower or faster, it is explained by that change.
      std::vector<std::size_t> moved, explained;
      for (std::size_t a = 0; a < H; ++a)
        if (sc[a] != image[sb[a]]) (mates(sc, a).empty() && in_delay_finding[a] ? explained : moved).push_back(a);
      const auto nb = partition_of(sb).size(), nc = partition_of(sc).size();
      std::set<std::string> moved_hosts;
      if (!moved.empty() && moved.size() * 4 <= H) {
        for (std::size_t a : moved) {
          Finding f;
          f.kind = "node_moved";
          host_ranks(f, a);
          moved_hosts.insert(out.hosts[a]);
          const auto old_mates = mates(sb, a), new_mates = mates(sc, a);
          f.detail = fmt::format("node {} is on another switch: with {} in the baseline, with {} now (switch groups "
                                 "found in the delays)",
                                 out.hosts[a], old_mates.empty() ? "no other host" : host_list(old_mates, 4),
                                 new_mates.empty() ? "no other host" : host_list(new_mates, 4));
          out.findings.push_back(f);
        }
      } else if (!moved.empty()) {
        Finding f;
        f.kind = "topology_changed";
        for (std::size_t a : moved) host_ranks(f, a), moved_hosts.insert(out.hosts[a]);
        f.detail = fmt::format("the switch groups differ: {} group(s) of hosts in the baseline, {} now; {} of {} "
                               "hosts are in another group (switch groups found in the delays)",
                               nb, nc, moved.size(), H);
        out.findings.push_back(f);
      }
      // The links of a moved host changed class: they are the move, not findings of their own.
      const auto before = out.findings.size();
      std::erase_if(out.findings, [&](const Finding& f) {
        if (f.kind.rfind("link_", 0) != 0) return false;
        return std::any_of(f.hosts.begin(), f.hosts.end(), [&](const std::string& h) { return moved_hosts.count(h) > 0; });
      });
      if (out.findings.size() < before)
        out.notes.push_back(fmt::format("{} changed link(s) of the moved host(s) are part of the move, not listed",
                                        before - out.findings.size()));
      if (!explained.empty()) {
        std::vector<std::string> names;
        for (std::size_t a : explained) names.push_back(out.hosts[a]);
        out.notes.push_back(fmt::format("the switch groups of {} differ between the runs; not reported as a move: "
                                        "the host is alone in its group now and its node or links changed speed (a "
                                        "changed node or link looks like a host behind a switch of its own)",
                                        host_list(names)));
      }
    }
  }

  // ---- protocol thresholds, per class present in both runs ----
  for (const auto& fb : out.base.hockney.classes) {
    const ClassFit* fc = nullptr;
    for (const auto& x : out.cur.hockney.classes)
      if (x.name == fb.name) fc = &x;
    if (!fc) continue;
    std::vector<std::int64_t> lb, lc;
    for (const auto& t : fb.thresholds) lb.push_back(t.length);
    for (const auto& t : fc->thresholds) lc.push_back(t.length);
    if (lb == lc) continue;
    Finding f;
    f.kind = "threshold_changed";
    auto names = [](const std::vector<std::int64_t>& l) {
      if (l.empty()) return std::string("none");
      std::vector<std::string> s;
      for (auto x : l) s.push_back(format_bytes(x));
      return fmt::format("{}", fmt::join(s, ", "));
    };
    std::set<std::int64_t> all(lb.begin(), lb.end());
    all.insert(lc.begin(), lc.end());
    f.lengths.assign(all.begin(), all.end());
    f.detail = fmt::format("{} protocol threshold(s): {} in the baseline, {} now", fb.name, names(lb), names(lc));
    out.findings.push_back(f);
  }
  return out;
}

Comparison compare_runs(const std::string& baseline, const std::string& current, const CompareOptions& opt) {
  const std::string fb = compare_input(baseline), fc = compare_input(current);
  const Cube B = load_delays(fb);
  const Cube C = load_delays(fc);
  return compare_cubes(B, C, opt);
}

nlohmann::json to_json(const Comparison& c) {
  nlohmann::json j;
  j["program"] = "network_analyze";
  j["command"] = "compare";
  j["version"] = version_string();
  j["baseline"] = c.baseline;
  j["current"] = c.current;
  j["mode"] = std::string(mode_name(c.mode));
  j["statistic"] = std::string(statistic_name(c.statistic));
  j["ranks"] = {{"baseline", c.P_baseline}, {"current", c.P_current}};
  j["matched_by"] = c.by_host ? "host names" : "rank numbers";
  j["placement_differs"] = c.placement_differs;
  j["lengths"] = c.lengths;
  auto hosts = nlohmann::json::array();
  for (std::size_t a = 0; a < c.hosts.size(); ++a)
    hosts.push_back({{"host", c.hosts[a]}, {"ranks_baseline", c.ranks_baseline[a]}, {"ranks_current", c.ranks_current[a]}});
  j["hosts"] = {{"common", hosts}, {"missing", c.missing}, {"added", c.added}};
  auto cl = nlohmann::json::array();
  for (const auto& x : c.classes)
    cl.push_back({{"class", x.name}, {"host_pairs", x.host_pairs}, {"ratio", num(x.ratio)}, {"noise", num(x.noise)}});
  j["classes"] = cl;
  auto fs = nlohmann::json::array();
  for (const auto& f : c.findings) {
    nlohmann::json x{{"kind", f.kind},          {"hosts", f.hosts},   {"ranks_baseline", f.ranks_baseline},
                     {"ranks_current", f.ranks_current}, {"ratio", num(f.ratio)}, {"sigmas", num(f.sigmas)},
                     {"lengths", f.lengths},    {"detail", f.detail}};
    if (!f.direction.empty()) x["direction"] = f.direction;
    fs.push_back(x);
  }
  j["findings"] = fs;
  j["topology"] = {{"baseline", hierarchy_json(c.base.topology)}, {"current", hierarchy_json(c.cur.topology)}};
  j["notes"] = c.notes;
  return j;
}

std::string to_text(const Comparison& c) {
  std::ostringstream o;
  o << fmt::format("network_analyze compare\n  baseline {} ({} ranks)\n  current  {} ({} ranks)\n", c.baseline,
                   c.P_baseline, c.current, c.P_current);
  o << fmt::format("  mode {}, statistic {}, {} common lengths {}\n", mode_name(c.mode), statistic_name(c.statistic),
                   c.lengths.size(), lengths_text(c.lengths));
  o << fmt::format("  {} common host(s), ranks matched by {}{}", c.hosts.size(), c.by_host ? "host name" : "rank number",
                   c.placement_differs ? " (the placement differs)" : "");
  if (!c.missing.empty()) o << fmt::format("; missing now: {}", host_list(c.missing));
  if (!c.added.empty()) o << fmt::format("; new: {}", host_list(c.added));
  o << "\n\n";
  o << "Classes (current / baseline, median over the lengths; noise = robust sigma of the links' change)\n";
  for (const auto& x : c.classes)
    o << fmt::format("  {:<16} {:>6} host pairs  ratio {:.3f}  noise {:.1f}%\n", x.name, x.host_pairs, x.ratio,
                     100 * x.noise);
  o << "\nFindings";
  if (c.findings.empty()) o << ": none (nothing changed beyond the runs' noise)\n";
  else o << fmt::format(" ({})\n", c.findings.size());
  for (const auto& f : c.findings) {
    o << fmt::format("  {:<18}", f.kind);
    // Up to 4 hosts: each with its ranks in the current run (and in the baseline when they differ).
    std::map<std::string, std::size_t> index;
    for (std::size_t a = 0; a < c.hosts.size(); ++a) index[c.hosts[a]] = a;
    const bool per_host = !f.hosts.empty() && f.hosts.size() <= 4 &&
                          std::all_of(f.hosts.begin(), f.hosts.end(), [&](const std::string& h) { return index.count(h); });
    if (per_host) {
      std::vector<std::string> parts;
      for (const auto& h : f.hosts) {
        const auto& now = c.ranks_current[index[h]];
        const auto& then = c.ranks_baseline[index[h]];
        parts.push_back(now == then ? fmt::format("{} (ranks {})", h, ranks_text(now))
                                    : fmt::format("{} (ranks now {}; baseline {})", h, ranks_text(now), ranks_text(then)));
      }
      o << fmt::format(" {}", fmt::join(parts, ", "));
    } else {
      if (!f.hosts.empty()) o << fmt::format(" hosts {}", host_list(f.hosts));
      else if (f.kind.rfind("class_", 0) == 0 || f.kind == "threshold_changed") o << " (a whole class)";
      if (!f.ranks_current.empty()) o << fmt::format("  ranks now {}", ranks_text(f.ranks_current));
      if (!f.ranks_baseline.empty() && (f.ranks_baseline != f.ranks_current))
        o << fmt::format("  (baseline {})", ranks_text(f.ranks_baseline));
    }
    o << fmt::format("\n  {:<18} {}; lengths {}\n", "", f.detail, lengths_text(f.lengths));
  }
  if (!c.notes.empty()) {
    o << "\nNotes\n";
    for (const auto& n : c.notes) o << "  " << n << "\n";
  }
  return o.str();
}

}  // namespace nt::analysis
