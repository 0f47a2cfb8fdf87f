#include "nt/analysis/models.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include <fmt/format.h>

#include "nt/error.hpp"

namespace nt::analysis {
namespace {

constexpr long long kCap = 4'000'000'000'000'000'000LL;

void check_logp(int L, int o, int g) {
  if (L < 0 || o < 0 || g < 1 || L + 2 * o < 1)
    throw UsageError(fmt::format("LogP parameters L={} o={} g={}: need L, o >= 0, g >= 1 and L + 2o >= 1", L, o, g));
}

int ceil_log2(int P) {
  int d = 0;
  while ((1LL << d) < P) ++d;
  return d;
}

}  // namespace

std::vector<long long> reach_counts(int T, int L, int o, int g) {
  check_logp(L, o, g);
  const int a = L + 2 * o;
  std::vector<long long> f(static_cast<std::size_t>(std::max(T, 0)) + 1, 1);
  for (int n = 0; n <= T; ++n) {
    long long v;
    if (n < a) v = 1;
    else if (n < g) v = 1 + n / a;  // only reachable when L + 2o <= n < g
    else v = std::min(kCap, f[static_cast<std::size_t>(n - g)] + f[static_cast<std::size_t>(n - a)]);
    f[static_cast<std::size_t>(n)] = v;
  }
  return f;
}

int optimal_broadcast_time(int P, int L, int o, int g) {
  check_logp(L, o, g);
  if (P < 1) throw UsageError("at least 1 processor is needed");
  int T = 0;
  for (;; T = T * 2 + 1) {
    const auto f = reach_counts(T, L, o, g);
    if (f.back() >= P) {
      for (int n = 0; n <= T; ++n)
        if (f[static_cast<std::size_t>(n)] >= P) return n;
    }
  }
}

std::vector<TreeNode> optimal_broadcast_tree(int P, int L, int o, int g) {
  const int T = optimal_broadcast_time(P, L, o, g);
  const int a = L + 2 * o;
  std::vector<TreeNode> nodes;
  nodes.reserve(static_cast<std::size_t>(P));
  // Preorder DFS of OBT(f_T): children of a node with time Ti have times Ti - a - k g >= 0.
  struct Item { int time, parent; };
  std::vector<Item> stack{{T, -1}};
  while (!stack.empty() && static_cast<int>(nodes.size()) < P) {
    const Item it = stack.back();
    stack.pop_back();
    TreeNode n;
    n.proc = static_cast<int>(nodes.size());
    n.time = it.time;
    n.label = T - it.time;
    n.parent = it.parent;
    const int idx = static_cast<int>(nodes.size());
    if (it.parent >= 0) nodes[static_cast<std::size_t>(it.parent)].children.push_back(idx);
    nodes.push_back(n);
    std::vector<int> kids;
    for (int k = 0; it.time - a - k * g >= 0; ++k) kids.push_back(it.time - a - k * g);
    for (auto r = kids.rbegin(); r != kids.rend(); ++r) stack.push_back({*r, idx});
  }
  return nodes;
}

Summation optimal_summation(long long N, int P, int L, int o, int g) {
  if (N < 1) throw UsageError("at least 1 operand is needed");
  Summation s;
  s.tree = optimal_broadcast_tree(P, L + 1, o, g);
  s.T_broadcast = s.tree.front().time;
  long long sum = 0;
  for (const auto& n : s.tree) sum += n.time;
  s.operands_in_T = sum - static_cast<long long>(o) * P + o + 1;
  s.time = s.T_broadcast;
  if (N > s.operands_in_T) s.time += (N - s.operands_in_T + P - 1) / P;
  return s;
}

std::vector<std::pair<double, int>> optimal_broadcast_labels(int P, double L, double o, double g) {
  std::vector<std::pair<double, int>> nodes;
  if (P < 1) return nodes;
  const double a = L + 2 * o;
  const double gap = std::max(g, o);
  nodes.emplace_back(0.0, -1);
  // (label, parent, k): the k-th child of parent.
  using E = std::tuple<double, int, int>;
  std::priority_queue<E, std::vector<E>, std::greater<>> heap;
  if (P > 1) heap.emplace(a, 0, 0);
  while (static_cast<int>(nodes.size()) < P) {
    auto [lab, par, k] = heap.top();
    heap.pop();
    const int idx = static_cast<int>(nodes.size());
    nodes.emplace_back(lab, par);
    heap.emplace(lab + a, idx, 0);
    heap.emplace(nodes[static_cast<std::size_t>(par)].first + a + (k + 1) * gap, par, k + 1);
  }
  return nodes;
}

double optimal_broadcast_time_real(int P, double L, double o, double g) {
  const auto n = optimal_broadcast_labels(P, L, o, g);
  double t = 0;
  for (const auto& e : n) t = std::max(t, e.first);
  return t;
}

double logp_binomial_bcast(int P, const LogGP& p, double m) {
  const int d = ceil_log2(std::max(P, 1));
  const double a = p.L_eff(m) + 2 * p.o, gap = std::max(p.g_eff(m), p.o);
  std::vector<double> T(static_cast<std::size_t>(d) + 1, 0.0);
  for (int e = 1; e <= d; ++e) {
    double best = 0;
    for (int i = 0; i < e; ++i) best = std::max(best, i * gap + a + T[static_cast<std::size_t>(e - 1 - i)]);
    T[static_cast<std::size_t>(e)] = best;
  }
  return T[static_cast<std::size_t>(d)];
}

double logp_flat_bcast(int P, const LogGP& p, double m) {
  if (P < 2) return 0;
  return p.L_eff(m) + 2 * p.o + (P - 2) * std::max(p.g_eff(m), p.o);
}

double logp_optimal_bcast(int P, const LogGP& p, double m) {
  return optimal_broadcast_time_real(P, p.L_eff(m), p.o, p.g_eff(m));
}

double logp_binomial_reduce_root(int P, const LogGP& p, double m, double lambda, double gamma) {
  if (P < 2) return m * lambda;
  const double step = p.o + p.L + std::max(p.o + m * gamma, p.g);
  if ((P & (P - 1)) == 0) {
    const double logP = std::log2(static_cast<double>(P));
    return m * lambda + (logP - 1) * step + 2 * p.o + p.L + m * gamma;
  }
  return m * lambda + std::floor(std::log2(static_cast<double>(P))) * step + p.o + m * gamma;
}

double kchain_time(int k, int P, double a, double b) {
  return ((P - 1) / static_cast<double>(k) + 1) * a + (k - 1) * b;
}
double kchain_k_star(int P, double a, double b) { return std::sqrt(a * (P - 1) / b); }
int kchain_optimal_k(int P, double a, double b) {
  if (P <= 2) return 1;
  const double ks = kchain_k_star(P, a, b);
  int best = 1;
  double bt = kchain_time(1, P, a, b);
  const int lo = std::max(1, static_cast<int>(std::floor(ks)) - 1), hi = std::min(P - 1, static_cast<int>(std::ceil(ks)) + 1);
  for (int k = lo; k <= hi; ++k)
    if (kchain_time(k, P, a, b) < bt) {
      bt = kchain_time(k, P, a, b);
      best = k;
    }
  if (kchain_time(P - 1, P, a, b) < bt) best = P - 1;
  return best;
}
int kchain_recommended_k(int P) {
  if (P <= 2) return 1;
  return static_cast<int>(std::ceil(std::sqrt(static_cast<double>(P - 1)) - 1e-12));
}
double kchain_optimal_time(int P, double a, double b) {
  return 2 * std::sqrt(a * b) * std::sqrt(static_cast<double>(P - 1)) + a - b;
}

namespace {
double lg(int P) { return static_cast<double>(ceil_log2(std::max(P, 1))); }
double sq(int P) { return std::sqrt(static_cast<double>(P)); }
}  // namespace
double hockney_bcast_binomial(int P, const Hockney& h, double m) { return lg(P) * h.message(m); }
double hockney_bcast_flat(int P, const Hockney& h, double m) { return (P - 1) * h.message(m); }
double hockney_allgather_ring(int P, const Hockney& h, double m) { return (P - 1) * h.message(m); }
double hockney_allgather_mesh(int P, const Hockney& h, double m) { return 2 * h.ts * (sq(P) - 1) + h.tw * m * (P - 1); }
double hockney_allgather_hypercube(int P, const Hockney& h, double m) { return h.ts * lg(P) + h.tw * m * (P - 1); }
double hockney_alltoall_ring(int P, const Hockney& h, double m) { return (h.ts + h.tw * m * P / 2.0) * (P - 1); }
double hockney_alltoall_mesh(int P, const Hockney& h, double m) { return (2 * h.ts + h.tw * m * P) * (sq(P) - 1); }
double hockney_alltoall_hypercube(int P, const Hockney& h, double m) { return h.message(m) * (P - 1); }
double hockney_allreduce_hypercube(int P, const Hockney& h, double m) { return h.message(m) * lg(P); }
double hockney_scatter(int P, const Hockney& h, double m) { return h.ts * lg(P) + h.tw * m * (P - 1); }

Hockney ClassParams::hockney_for(double m) const {
  if (hockney.empty()) return {t0, 0.0};
  const RangeFit* r = &hockney.front();
  for (const auto& rg : hockney)
    if (m >= static_cast<double>(rg.from)) r = &rg;
  Hockney h{r->fit.ts, r->fit.tw};
  if (!std::isfinite(h.tw)) h.tw = 0;
  if (!std::isfinite(h.ts)) h.ts = t0;
  return h;
}

namespace {

// The loggp file's values of the pairs of one class: the medians are taken over these.
struct ClassLoggp {
  std::vector<double> L, os, orr, g, G, res, fb, lor, g2, G2;
  std::size_t apart = 0, together = 0;  // pairs whose L and o_r are separable, and not
  std::string reason;                   // why the first pair not separable is not
};

ClassLoggp collect_class_loggp(const LoggpData* loggp, const Topology& t, int q) {
  ClassLoggp values;
  auto& [L, os, orr, g, G, res, fb, lor, g2, G2, apart, together, reason] = values;
  const auto P = static_cast<std::size_t>(loggp->ranks);
  const std::size_t S = loggp->sizes.size();
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < P; ++j) {
      if (i == j || t.pair_class(static_cast<int>(i), static_cast<int>(j)) != q) continue;
      const std::size_t x = i * P + j;
      if (x >= loggp->G.size() || !std::isfinite(loggp->G[x])) continue;
      auto add = [&](std::vector<double>& v, const std::vector<double>& src) {
        if (x < src.size() && std::isfinite(src[x])) v.push_back(src[x]);
      };
      // Files written before the flag: the same test on the pair's per-size data.
      bool sep = true;
      if (x < loggp->separable.size() && loggp->separable[x] >= 0) {
        sep = loggp->separable[x] != 0;
        if (!sep && reason.empty() && loggp->orecv.size() >= (x + 1) * S && S > 0)
          reason = loggp_separability(loggp->sizes, &loggp->prtt1[x * S], loggp->osend.empty() ? nullptr : &loggp->osend[x * S],
                                      &loggp->orecv[x * S], loggp->G[x], loggp->fit_break[x]).reason;
      } else if (loggp->orecv.size() >= (x + 1) * S && S > 0) {
        const auto s = loggp_separability(loggp->sizes, &loggp->prtt1[x * S],
                                          loggp->osend.empty() ? nullptr : &loggp->osend[x * S], &loggp->orecv[x * S],
                                          loggp->G[x], loggp->fit_break[x]);
        sep = s.separable;
        if (!sep && reason.empty()) reason = s.reason;
      }
      (sep ? apart : together) += 1;
      if (sep) {
        add(L, loggp->L);
        add(orr, loggp->o_r);
      }
      add(os, loggp->o_s);
      add(g, loggp->g);
      add(G, loggp->G);
      add(res, loggp->residual);
      add(g2, loggp->g2);
      add(G2, loggp->G2);
      if (x < loggp->fit_break.size() && loggp->fit_break[x] >= 0) fb.push_back(loggp->fit_break[x]);
      // L + o_r: the one-way delay of the smallest size less o_s and the bytes' time.
      if (S > 0 && loggp->prtt1.size() >= (x + 1) * S && x < loggp->o_s.size()) {
        const double v = 0.5 * loggp->prtt1[x * S] - loggp->o_s[x] - loggp->G[x] * static_cast<double>(loggp->sizes[0]);
        if (std::isfinite(v)) lor.push_back(v);
      }
    }
  return values;
}

// p's LogGP parameters from the medians of its pairs' values (f: p has a Hockney fit).
void set_class_loggp(ClassParams& p, const ClassLoggp& values, const LoggpData* loggp, const ClassFit* f) {
  const auto& [L, os, orr, g, G, res, fb, lor, g2, G2, apart, together, reason] = values;
  p.have_loggp = true;
  p.pairs = std::max(p.pairs, G.size());
  p.separable = together * 2 <= apart + together && !L.empty();
  p.loggp = {p.separable ? finite_median(L) : 0.0, 0.0, finite_median(g), finite_median(G)};
  p.o_s = finite_median(os);
  p.o_r = p.separable ? finite_median(orr) : 0.0;
  p.L_plus_o_r = lor.empty() ? kNaN : finite_median(lor);
  p.loggp_residual = finite_median(res);
  p.fit_break = fb.empty() ? -1 : static_cast<std::int64_t>(finite_median(fb));
  if (!p.separable) {
    p.not_separable_reason = fmt::format("{} of {} pairs: {}", together, apart + together,
                                         reason.empty() ? "L and o_r are not separable" : reason);
    p.loggp.L = p.L_plus_o_r - p.o_s;  // with o = o_s below, L + 2o = L + o_r + o_s: the one-way delay
    p.notes.push_back(fmt::format("{}: L and o_r are not separable ({}); L + o_r = {:.4g} us is what was "
                                  "measured: the predictions take L = L + o_r - o_s and o = o_s",
                                  p.name, p.not_separable_reason, p.L_plus_o_r * 1e6));
  } else {
    p.L_plus_o_r = p.loggp.L + p.o_r;
  }
  // A LogGP fit of noisy data can give a negative median (g, the intercept of the gap line,
  // say): no such time exists, so it is 0 with a note instead of a negative number.
  for (auto [what, v] : {std::pair{"L", &p.loggp.L}, std::pair{"o_s", &p.o_s}, std::pair{"o_r", &p.o_r},
                         std::pair{"g", &p.loggp.g}, std::pair{"G", &p.loggp.G}})
    if (*v < 0) {
      p.notes.push_back(fmt::format("{}: the loggp file's median {} is negative (below 0 by {:.3g}): not "
                                    "identifiable from that fit, 0 used",
                                    p.name, what, -*v));
      *v = 0;
    }
  // One o for LogP: L + 2o = L + o_s + o_r, the one-way delay (o_r is in L when not separable).
  p.loggp.o = p.separable ? (p.o_s + p.o_r) / 2 : p.o_s;
  // The gap's ranges: the first protocol's line up to the break, the next one's from it.
  p.gap_ranges.push_back({loggp->sizes.empty() ? 0 : loggp->sizes.front(), p.fit_break, p.loggp.g, p.loggp.G});
  if (p.fit_break >= 0 && !G2.empty())
    p.gap_ranges.push_back({p.fit_break, -1, std::max(0.0, finite_median(g2)), std::max(0.0, finite_median(G2))});
  // Per-message overheads bound the gap of small messages: max(o_s, o_r, g + G s).
  const double ob = std::max(p.o_s, p.o_r);
  p.overhead_bound = ob > p.loggp.g ? ob : 0.0;
  if (!f) p.t0 = p.loggp.L + 2 * p.loggp.o;
}

}  // namespace


std::vector<ClassParams> class_params(const Cube* delays, const Topology& t, const HockneyResult* h,
                                      const LoggpData* loggp, const ModelOptions& opt) {
  std::vector<ClassParams> out;
  if (loggp && loggp->ranks != t.P)
    throw Error(fmt::format("the loggp file has {} ranks, the delay file {}", loggp->ranks, t.P));
  for (int q = 0; q < t.class_count(); ++q) {
    ClassParams p;
    p.cls = q;
    p.name = t.class_name(q);
    const ClassFit* f = h ? h->find(q) : nullptr;
    if (f) {
      p.pairs = f->pairs;
      p.hockney = f->ranges;
      for (std::size_t k = 0; k < f->curve.size(); ++k)
        if (std::isfinite(f->curve[k])) {
          p.t0 = f->curve[k];
          p.t0_length = delays ? delays->lengths[k] : 0;
          break;
        }
    }
    if (loggp) {
      const ClassLoggp values = collect_class_loggp(loggp, t, q);
      if (!values.G.empty()) set_class_loggp(p, values, loggp, f);
    }
    if (!f && !p.have_loggp) continue;
    if (!p.have_loggp) {
      // G: the long-range Hockney tw, the same G the LogGOPSim export gives (one G everywhere).
      const double o = opt.o.value_or(0.0);
      const double tw = p.hockney_for(1e18).tw;
      p.loggp = {std::max(0.0, p.t0 - 2 * o), o, opt.g.value_or(p.t0), std::isfinite(tw) ? tw : 0.0};
      p.o_s = p.o_r = o;
    } else {
      if (opt.o) p.loggp.o = *opt.o;
      if (opt.g) p.loggp.g = *opt.g;
    }
    out.push_back(std::move(p));
  }
  return out;
}

Cube cube_from_loggp(const LoggpData& d) {
  Cube c;
  c.P = d.ranks;
  c.mode = Mode::loggp;
  c.hosts = d.info.meta.hosts;
  if (!c.hosts.empty() && static_cast<int>(c.hosts.size()) != c.P) c.hosts.clear();
  const std::size_t S = d.sizes.size();
  const auto P = static_cast<std::size_t>(d.ranks);
  if (S == 0 || P < 2 || d.prtt1.size() < P * P * S) throw Error("the loggp file holds no PRTT(1,0,s) data to analyse");
  c.lengths = d.sizes;
  c.v.assign(S * P * P, 0.0);
  for (std::size_t s = 0; s < S; ++s)
    for (std::size_t i = 0; i < P; ++i)
      for (std::size_t j = 0; j < P; ++j) {
        const double v = d.prtt1[(i * P + j) * S + s];
        c.v[(s * P + i) * P + j] = i == j ? 0.0 : (std::isfinite(v) ? v / 2 : 0.0);
      }
  return c;
}

namespace {
// The LogP parameters an m-byte message sees with class p (from delays alone: L absorbs the
// Hockney time of the message).
LogGP logp_at(const ClassParams& p, double m) {
  LogGP lp = p.loggp;
  if (!p.have_loggp) {
    lp.L = std::max(0.0, p.hockney_for(m).message(m) - 2 * lp.o);
    lp.G = 0;
  }
  return lp;
}
}  // namespace

std::vector<BcastRow> predict_bcast(int P, const std::vector<std::int64_t>& lengths, const ClassParams& p,
                                    const Cube* bcast, const Hierarchy& hier) {
  std::vector<BcastRow> rows;
  for (auto len : lengths) {
    const auto m = static_cast<double>(len);
    BcastRow r;
    r.length = len;
    const Hockney h = p.hockney_for(m);
    r.hockney_binomial = hockney_bcast_binomial(P, h, m);
    r.hockney_flat = hockney_bcast_flat(P, h, m);
    const LogGP lp = logp_at(p, m);
    if (hier.intra && hier.nodes >= 1 && hier.per_node >= 1 && hier.intra != &p)
      r.hierarchical = logp_binomial_bcast(hier.nodes, lp, m) + logp_binomial_bcast(hier.per_node, logp_at(*hier.intra, m), m);
    r.logp_binomial = logp_binomial_bcast(P, lp, m);
    r.logp_flat = logp_flat_bcast(P, lp, m);
    r.logp_optimal = logp_optimal_bcast(P, lp, m);
    const double a = lp.L_eff(m) + 2 * lp.o, b = std::max(lp.o, lp.g_eff(m));
    if (P > 1 && b > 0) {
      r.kchain_k = kchain_optimal_k(P, a, b);
      r.kchain = kchain_time(r.kchain_k, P, a, b);
    }
    if (bcast) {
      for (std::size_t k = 0; k < bcast->count(); ++k)
        if (bcast->lengths[k] == len) {
          std::vector<double> per_root;
          for (int i = 0; i < bcast->P; ++i) {
            double mx = -1;
            for (int j = 0; j < bcast->P; ++j)
              if (std::isfinite(bcast->at(k, i, j))) mx = std::max(mx, bcast->at(k, i, j));
            if (mx > 0) per_root.push_back(mx);
          }
          if (!per_root.empty()) r.measured = finite_median(per_root);
          break;
        }
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace nt::analysis
