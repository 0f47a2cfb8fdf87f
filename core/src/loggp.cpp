// The loggp result file (see nt/loggp.hpp): CDF-2, parameters and metadata like the raw files.
#include "nt/output.hpp"
#include "nt/loggp.hpp"

#include <netcdf.h>

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"

namespace nt {

namespace fs = std::filesystem;

namespace {
constexpr const char* kMethod =
    "Hoefler's parametrised round trip PRTT(n,d,s) per pair (netgauge loggp pattern): "
    "g+G*s = (PRTT(n,0,s)-PRTT(1,0,s))/(n-1) fitted by least squares over s (G >= 0) up to fit_break; "
    "o_s = (PRTT(n,d,s)-PRTT(1,0,s))/(n-1)-d and o_r (time of a receive whose message has arrived) at the "
    "smallest size; L = PRTT(1,0,s0)/2 - o_s - o_r - G*s0; where o_r holds the transfer (separable = 0) "
    "L and o_r are NaN";

void check_size(const fs::path& path, const char* what, std::size_t have, std::size_t want) {
  if (have != want)
    throw Error("internal: write_loggp " + path.string() + ": " + what + " has " + std::to_string(have) +
                " values, expected " + std::to_string(want));
}

// Every variable of d has the values of its shape: a value per pair, or per pair and size.
void check_loggp_sizes(const fs::path& path, const LoggpData& d) {
  const auto P = static_cast<std::size_t>(d.ranks);
  const std::size_t S = d.sizes.size();
  if (d.ranks <= 0) throw UsageError("cannot write " + path.string() + ": no ranks");
  const std::size_t pairs = P * P;
  for (auto [name, v] : {std::pair{"L", &d.L}, {"o_s", &d.o_s}, {"o_r", &d.o_r}, {"g", &d.g}, {"G", &d.G},
                         {"residual", &d.residual}})
    check_size(path, name, v->size(), pairs);
  check_size(path, "fit_break", d.fit_break.size(), pairs);
  if (!d.separable.empty()) check_size(path, "separable", d.separable.size(), pairs);
  for (auto [name, v] : {std::pair{"g2", &d.g2}, {"G2", &d.G2}})
    if (!v->empty()) check_size(path, name, v->size(), pairs);
  for (auto [name, v] : {std::pair{"prtt1", &d.prtt1}, {"prttn", &d.prttn}, {"prttd", &d.prttd}})
    check_size(path, name, v->size(), pairs * S);
  for (auto [name, v] : {std::pair{"delay", &d.delay}, {"orecv", &d.orecv}, {"osend", &d.osend}})
    if (!v->empty()) check_size(path, name, v->size(), pairs * S);
}

// The message sizes as the file's 32-bit integers.
std::vector<int> int_sizes(const std::vector<std::int64_t>& sizes) {
  std::vector<int> out;
  for (auto v : sizes) {
    if (v < 0 || v > std::numeric_limits<int>::max()) throw Error("loggp size out of range: " + std::to_string(v));
    out.push_back(static_cast<int>(v));
  }
  return out;
}
}  // namespace

void write_loggp(const fs::path& path, const LoggpData& d, bool overwrite) {
  check_loggp_sizes(path, d);
  const auto P = static_cast<std::size_t>(d.ranks);
  const std::size_t S = d.sizes.size();
  PendingOutput out(path, overwrite);
  auto f = nc::File::create(out.temp(), nc::Kind::cdf2, /*overwrite=*/true);
  f.set_fill(false);
  const int x = f.def_dim("x", P), y = f.def_dim("y", P), s = f.def_dim("s", S);
  FileInfo fi = d.info;
  fi.params.mode = Mode::loggp;
  fi.params.proc_num = d.ranks;
  write_file_info(f, fi);
  f.put_att(NC_GLOBAL, "prtt_n", d.prtt_n);
  f.put_att(NC_GLOBAL, "prtt_delay", d.prtt_delay);
  f.put_att(NC_GLOBAL, "method", std::string(kMethod));
  struct V {
    const char* name;
    const std::vector<double>* v;
    const char* units;
    bool per_size;
  };
  const std::vector<V> vars = {
      {"L", &d.L, "s", false},         {"o_s", &d.o_s, "s", false},       {"o_r", &d.o_r, "s", false},
      {"g", &d.g, "s", false},         {"G", &d.G, "s/byte", false},      {"residual", &d.residual, "1", false},
      {"prtt1", &d.prtt1, "s", true},  {"prttn", &d.prttn, "s", true},    {"prttd", &d.prttd, "s", true},
      {"delay", &d.delay, "s", true},  {"o_r_s", &d.orecv, "s", true},    {"o_s_s", &d.osend, "s", true},
      {"g2", &d.g2, "s", false},       {"G2", &d.G2, "s/byte", false},
  };
  std::vector<int> ids;
  for (const auto& v : vars) {
    const std::string vn = v.name;
    if (v.v->empty() && vn != "prtt1" && vn != "prttn" && vn != "prttd" && vn != "L" && vn != "o_s" && vn != "o_r" &&
        vn != "g" && vn != "G" && vn != "residual") {
      ids.push_back(-1);
      continue;
    }
    const int id = f.def_var(v.name, NC_DOUBLE, v.per_size ? std::vector<int>{x, y, s} : std::vector<int>{x, y});
    f.put_att(id, "units", std::string(v.units));
    ids.push_back(id);
  }
  const int fb = f.def_var("fit_break", NC_INT, {x, y});
  f.put_att(fb, "units", std::string("bytes"));
  f.put_att(fb, "long_name", std::string("first size where the g+G*s fit breaks, -1 none"));
  int sep = -1;
  if (!d.separable.empty()) {
    sep = f.def_var("separable", NC_INT, {x, y});
    f.put_att(sep, "long_name", std::string("1: L and o_r measured apart; 0: o_r holds the transfer, L and o_r NaN"));
  }
  const int sz = f.def_var("size", NC_INT, {s});
  f.put_att(sz, "units", std::string("bytes"));
  f.enddef();
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (ids[i] < 0) continue;
    if (vars[i].per_size) {
      if (S) f.put(ids[i], {0, 0, 0}, {P, P, S}, vars[i].v->data());
    } else {
      f.put(ids[i], {0, 0}, {P, P}, vars[i].v->data());
    }
  }
  f.put(fb, {0, 0}, {P, P}, d.fit_break.data());
  if (sep >= 0) f.put(sep, {0, 0}, {P, P}, d.separable.data());
  const std::vector<int> sizes = int_sizes(d.sizes);
  if (S) f.put(sz, {0}, {S}, sizes.data());
  f.sync();
  f.close();
  out.commit();
}

LoggpData read_loggp(const fs::path& path) {
  auto f = nc::File::open(path);
  LoggpData d;
  d.info = read_file_info(f);
  if (d.info.params.mode != Mode::loggp) throw FileError(path, "not a loggp file (test_type is not 10)");
  const auto P = f.dim("x").length;
  const auto S = f.dim("s").length;
  d.ranks = static_cast<int>(P);
  d.prtt_n = f.get_att_int(NC_GLOBAL, "prtt_n").value_or(0);
  d.prtt_delay = f.get_att_double(NC_GLOBAL, "prtt_delay").value_or(0.0);
  auto read2 = [&](const char* name, std::vector<double>& out) {
    out.resize(P * P);
    f.get(f.var(name).id, {0, 0}, {P, P}, out.data());
  };
  auto read3 = [&](const char* name, std::vector<double>& out, bool optional) {
    if (optional && !f.find_var(name)) return;
    out.resize(P * P * S);
    if (S) f.get(f.var(name).id, {0, 0, 0}, {P, P, S}, out.data());
  };
  read2("L", d.L);
  read2("o_s", d.o_s);
  read2("o_r", d.o_r);
  read2("g", d.g);
  read2("G", d.G);
  read2("residual", d.residual);
  d.fit_break.resize(P * P);
  f.get(f.var("fit_break").id, {0, 0}, {P, P}, d.fit_break.data());
  if (f.find_var("g2")) read2("g2", d.g2);
  if (f.find_var("G2")) read2("G2", d.G2);
  if (f.find_var("separable")) {
    d.separable.resize(P * P);
    f.get(f.var("separable").id, {0, 0}, {P, P}, d.separable.data());
  }
  std::vector<int> sizes(S);
  if (S) f.get(f.var("size").id, {0}, {S}, sizes.data());
  d.sizes.assign(sizes.begin(), sizes.end());
  read3("prtt1", d.prtt1, false);
  read3("prttn", d.prttn, false);
  read3("prttd", d.prttd, false);
  read3("delay", d.delay, true);
  read3("o_r_s", d.orecv, true);
  read3("o_s_s", d.osend, true);
  return d;
}

Separability loggp_separability(const std::vector<std::int64_t>& sizes, const double* prtt1, const double* osend,
                                const double* orecv, double G, std::int64_t upto) {
  Separability r;
  const std::size_t S = sizes.size();
  if (S == 0 || !orecv || !prtt1) return r;
  const double os = osend && std::isfinite(osend[0]) ? std::max(0.0, osend[0]) : 0.0;
  const double left = 0.5 * prtt1[0] - os;  // L + o_r (+ G s0)
  if (std::isfinite(orecv[0]) && left > 0 && orecv[0] >= 0.9 * left) {
    r.separable = false;
    r.reason = fmt::format("the receive of a message already announced took {:.4g} us of the {:.4g} us one-way delay "
                           "left after o_s: the data moves only once the receive is posted (rendezvous), so L and o_r "
                           "are not separable",
                           orecv[0] * 1e6, left * 1e6);
    return r;
  }
  // A receive overhead that grows with the size is not enough: a per-byte cost of the receive (the
  // copy out of a shared-memory buffer: LogGOPS's O) grows too, and L at the smallest size is
  // still measured. The receive must also hold at least half of the one-way delay at s0.
  if (!(std::isfinite(orecv[0]) && left > 0 && orecv[0] >= 0.5 * left)) return r;
  // Least-squares slope of o_r(s) over the sizes below `upto`.
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < S; ++k) {
    if (upto >= 0 && sizes[k] >= upto) break;
    if (!std::isfinite(orecv[k])) continue;
    const auto x = static_cast<double>(sizes[k]);
    n += 1;
    sx += x;
    sy += orecv[k];
    sxx += x * x;
    sxy += x * orecv[k];
  }
  const double den = n * sxx - sx * sx;
  if (n >= 3 && den > 0 && G > 0) {
    const double slope = (n * sxy - sx * sy) / den;
    if (slope >= 0.5 * G) {
      r.separable = false;
      r.reason = fmt::format("the receive overhead grows with the size like the transfer ({:.4g} ns/B against G "
                             "{:.4g} ns/B): the data moves inside the receive, so L and o_r are not separable",
                             slope * 1e9, G * 1e9);
    }
  }
  return r;
}

}  // namespace nt
