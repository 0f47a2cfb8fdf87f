// The exports of a report for other tools: LogGOPSim's parameters, the pairs' Hockney fits as CSV,
// the report as JSON, and the dispatch of `network_analyze export`; the SimGrid platform is
// simgrid_export.cpp's.
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/report.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/json_text.hpp"
#include "nt/loggp.hpp"

namespace nt::analysis {
namespace {
// LogGOPSim's time unit: the coarsest power of ten from 1 ns down in which G is an integer of three
// significant digits or more (G = 0: 1 ns). Its name for the header.
double loggopsim_unit(double G) {
  double u = 1e-9;
  if (G > 0 && std::isfinite(G))
    while (G / u < 99.95 && u > 1e-18) u /= 10;
  return u;
}
std::string unit_name(double u) {
  const int e = static_cast<int>(std::lround(-std::log10(u)));  // 9: 1 ns, 10: 100 ps, 11: 10 ps, 12: 1 ps, ...
  static const char* names[] = {"ns", "ps", "fs", "as"};
  const int k = std::min(3, (e - 9 + 2) / 3);
  const int factor = static_cast<int>(std::lround(std::pow(10.0, 3 * k - (e - 9))));
  return fmt::format("{} {}", factor, names[k]);
}
long long in_unit(double s, double u) { return std::isfinite(s) ? std::llround(s / u) : 0; }
}  // namespace

std::string export_loggopsim(const std::vector<ClassParams>& params) {
  if (params.empty()) throw Error("no class with data: nothing to export");
  const ClassParams* pick = &params.front();
  for (const auto& p : params)
    if (p.pairs > pick->pairs) pick = &p;
  auto G_of = [](const ClassParams& p) { return p.loggp.G; };  // one G: the model's
  const double G = G_of(*pick);
  const double u = loggopsim_unit(G);
  std::ostringstream o;
  o << "# LogGOPSim parameters from network_analyze " << version_string() << "\n";
  o << fmt::format("# time unit: {} (-L -o -g and -G per byte are integers of this unit, S is in bytes; give the "
                   "schedules' calc times in it too); the unit is the coarsest power of ten in which G keeps three "
                   "significant digits\n",
                   unit_name(u));
  for (const auto& p : params) {
    o << fmt::format("# {:<13} L={} o_s={:.6g}s o_r={} g={:.6g}s G={:.6g}s/B ({}) pairs={}\n", p.name,
                     p.separable ? fmt::format("{:.6g}s", p.loggp.L) : "not-separable", p.o_s,
                     p.separable ? fmt::format("{:.6g}s", p.o_r) : "not-separable", p.loggp.g, G_of(p),
                     p.have_loggp ? "measured LogGP" : "from delays: o=0, g=L+2o assumed, G=Hockney tw", p.pairs);
  }
  for (const auto& p : params)
    for (const auto& n : p.notes) o << "# note: " << n << "\n";
  // One o for LogGOPSim, so that o + L + o is the one-way delay of the smallest message as measured
  // (the delay file's, else the loggp file's L + o_s + o_r).
  const double one_way = pick->t0 > 0 ? pick->t0 : pick->loggp.L + 2 * pick->loggp.o;
  double L = pick->loggp.L, oo = 0.0;
  if (pick->have_loggp && !pick->separable) {
    oo = pick->o_s;  // L holds o_r
    L = one_way - 2 * oo;
    o << fmt::format("# o = o_s = {:.6g}s: L and o_r are not separable ({}), so L = one-way - 2 o holds o_r - o_s\n",
                     oo, pick->not_separable_reason);
  } else {
    oo = (one_way - L) / 2;
    if (pick->have_loggp)
      o << fmt::format("# overheads measured: o_s = {:.6g}s, o_r = {:.6g}s; LogGOPSim takes one o = (one-way - L)/2 = "
                       "{:.6g}s\n",
                       pick->o_s, pick->o_r, oo);
  }
  if (oo < 0 || L < 0) {
    o << fmt::format("# note: L = {:.6g}s is above the one-way delay {:.6g}s: L = the one-way delay and o = 0 used\n", L,
                     one_way);
    L = one_way;
    oo = 0;
  }
  o << fmt::format("# o + L + o = {:.6g}s: the measured one-way delay of the smallest message ({} B)\n", one_way,
                   pick->t0_length);
  std::int64_t S = -1;
  std::string s_note;
  if (pick->have_loggp) {
    if (pick->fit_break >= 0) {
      S = pick->fit_break;
      s_note = "where the LogGP gap changes its line (the protocol switch)";
    }
  } else {
    for (const auto& r : pick->hockney)
      if (&r != &pick->hockney.front()) {
        S = r.from;
        s_note = "first protocol threshold of the delays";
        break;
      }
  }
  if (S < 0) {
    S = 65535;
    s_note = "no protocol switch seen: LogGOPSim's default";
  }
  o << fmt::format("# class {}; S: {}\n", pick->name, s_note);
  o << fmt::format("-L {} -o {} -g {} -G {} -S {}\n", in_unit(L, u), in_unit(oo, u), in_unit(pick->loggp.g, u),
                   in_unit(G, u), S);
  return o.str();
}

std::string export_csv(const Report& r) {
  std::ostringstream o;
  o << "sender,receiver,sender_host,receiver_host,class,range,from_bytes,to_bytes,ts_s,tw_s_per_byte,bandwidth_Bps,r2,rel_rms,"
       "ts_identifiable,tw_identifiable\n";
  auto host = [&](int x) { return r.hosts.empty() ? std::string() : r.hosts[static_cast<std::size_t>(x)]; };
  for (const auto& p : r.hockney.pairs) {
    const ClassFit* f = r.hockney.find(p.cls);
    if (!f) continue;
    for (std::size_t g = 0; g < p.ranges.size() && g < f->ranges.size(); ++g) {
      const auto& l = p.ranges[g];
      o << fmt::format("{},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.6f},{:.6f},{:d},{:d}\n", p.i, p.j, host(p.i),
                       host(p.j), f->name, g, f->ranges[g].from, f->ranges[g].to, l.ts, l.tw,
                       l.tw_identifiable && l.tw > 0 ? 1.0 / l.tw : kNaN, l.r2, l.rel_rms, l.ts_identifiable ? 1 : 0,
                       l.tw_identifiable ? 1 : 0);
    }
  }
  return o.str();
}

const std::vector<std::pair<std::string, ExportFormat>>& export_formats() {
  static const std::vector<std::pair<std::string, ExportFormat>> f{{"json", ExportFormat::json},
                                                                   {"loggopsim", ExportFormat::loggopsim},
                                                                   {"simgrid", ExportFormat::simgrid},
                                                                   {"csv", ExportFormat::csv}};
  return f;
}

std::string export_text(const Report& r, ExportFormat format, const Cube* delays) {
  switch (format) {
    case ExportFormat::loggopsim: return export_loggopsim(r.params);
    case ExportFormat::simgrid:
      if (!delays) throw Error("export simgrid: the delays are needed");
      return export_simgrid(r, *delays);
    case ExportFormat::csv: return export_csv(r);
    case ExportFormat::json: break;
  }
  return json_text(to_json(r, true), 1) + "\n";
}

std::string make_export(const ExportRequest& req) {
  ReportOptions o;
  o.hosts_file = req.hosts_file;
  o.find_deviation_beside = false;
  Report r = make_report(req.delay_file, o);
  if (!req.loggp_file.empty()) {
    const auto lg = read_loggp(req.loggp_file);
    r.params = class_params(&r.cube, r.topology, &r.hockney, &lg, {});
  }
  if (req.format != ExportFormat::simgrid) return export_text(r, req.format);
  const Cube delays = open_delays(req.delay_file);
  return export_text(r, req.format, &delays);
}

}  // namespace nt::analysis
