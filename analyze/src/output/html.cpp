#include "nt/analysis/html.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/dataset.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/stats.hpp"
#include "nt/units.hpp"
#include "html_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {

namespace html_parts {

// The delays' map, the viewer's convention (share/doc/viewer.md): viridis reversed, darker is
// slower: t in [0, 1] from the fastest (yellow) through green and blue to the slowest (dark purple).
std::array<std::uint8_t, 3> sequential(double t) {
  static const double stops[5][3] = {{253, 231, 37}, {94, 201, 98}, {33, 145, 140}, {59, 82, 139}, {68, 1, 84}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  std::array<std::uint8_t, 3> c{};
  for (int q = 0; q < 3; ++q) c[q] = static_cast<std::uint8_t>(std::lround(stops[i][q] + f * (stops[i + 1][q] - stops[i][q])));
  return c;
}

std::pair<double, double> scale_ends(const std::vector<double>& l) {
  const double lo = l.front(), hi = l[std::min(l.size() - 1, l.size() * kScaleTopPercentile / 100)];
  return {lo, std::max(hi, lo + std::log(kScaleLeastSpan))};
}

// Ranks ordered by their groups, coarsest level first, so nodes and switches show as blocks.
std::vector<int> topology_order(const Topology& t, int P) {
  std::vector<int> order(static_cast<std::size_t>(P));
  std::iota(order.begin(), order.end(), 0);
  if (t.levels.empty()) return order;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    for (std::size_t l = t.levels.size(); l-- > 0;) {
      const int ga = t.levels[l].group_of[static_cast<std::size_t>(a)], gb = t.levels[l].group_of[static_cast<std::size_t>(b)];
      if (ga != gb) return ga < gb;
    }
    return a < b;
  });
  return order;
}

// "send only", "receive only", "both", "" (not judged).
std::string direction_word(const std::string& d) {
  return d == "send" ? "send only" : d == "receive" ? "receive only" : d;
}

}  // namespace html_parts

namespace {

using html_parts::sequential;
using html_parts::topology_order;
using html_parts::direction_word;
using html_parts::scale_ends;


constexpr int kMaxCells = 256;  // a picture has at most this many cells per side
constexpr int kSide = 440;      // a picture's side on the page, px
constexpr int kTickGap = 12;    // least distance between two tick labels, px

std::string esc(const std::string& s) { return text::xml_escape(s); }

void put32(std::string& s, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  std::string td = std::string(type, 4) + data;
  png += td;
  put32(png, static_cast<std::uint32_t>(
                 crc32(0L, reinterpret_cast<const Bytef*>(td.data()), static_cast<uInt>(td.size()))));
}

// Diverging map for a change: t in [-1, 1], blue (faster) - white - red (slower).
std::array<std::uint8_t, 3> diverging(double t) {
  t = std::clamp(t, -1.0, 1.0);
  const double a = std::fabs(t);
  const std::array<double, 3> end = t >= 0 ? std::array<double, 3>{178, 24, 43} : std::array<double, 3>{33, 102, 172};
  std::array<std::uint8_t, 3> c{};
  for (int q = 0; q < 3; ++q) c[q] = static_cast<std::uint8_t>(std::lround(247 + a * (end[q] - 247)));
  return c;
}

struct Picture {
  int n = 0;                  // cells per side
  std::vector<double> cell;   // n x n, NaN = none
  std::string caption;
  // Per entry of the order (down and across): its host ("" unknown) and its own label (a rank
  // number; "" when the entries are hosts), for the tick labels.
  std::vector<std::string> axis_host, axis_id;
};

// Cells of `order` (a permutation of [0, P)) averaged (geometric mean) over blocks of consecutive
// entries, at most kMaxCells per side. value(i, j) gives a positive value or NaN.
template <class F>
Picture block_picture(const std::vector<int>& order, F value) {
  const int P = static_cast<int>(order.size());
  Picture p;
  p.n = std::min(P, kMaxCells);
  p.cell.assign(static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n), std::nan(""));
  std::vector<int> bin(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) bin[static_cast<std::size_t>(r)] = static_cast<int>(static_cast<long long>(r) * p.n / P);
  std::vector<double> sum(p.cell.size(), 0.0);
  std::vector<int> cnt(p.cell.size(), 0);
  for (int x = 0; x < P; ++x)
    for (int y = 0; y < P; ++y) {
      const double v = value(order[static_cast<std::size_t>(x)], order[static_cast<std::size_t>(y)]);
      if (!(v > 0) || !std::isfinite(v)) continue;
      const std::size_t q = static_cast<std::size_t>(bin[static_cast<std::size_t>(x)]) * static_cast<std::size_t>(p.n) +
                            static_cast<std::size_t>(bin[static_cast<std::size_t>(y)]);
      sum[q] += std::log(v);
      ++cnt[q];
    }
  for (std::size_t q = 0; q < p.cell.size(); ++q)
    if (cnt[q] > 0) p.cell[q] = std::exp(sum[q] / cnt[q]);
  return p;
}

// Log scale (scale_ends for its ends); rows are senders (x), so the image
// is drawn with the sender down the rows and the receiver across.
std::string picture_png(const Picture& p, bool change, double& lo, double& hi) {
  std::vector<double> l;
  for (double v : p.cell)
    if (std::isfinite(v)) l.push_back(std::log(v));
  if (change) {
    lo = std::log(0.5), hi = std::log(2.0);
  } else if (!l.empty()) {
    std::sort(l.begin(), l.end());
    std::tie(lo, hi) = scale_ends(l);
  }
  std::vector<std::uint8_t> rgb;
  rgb.reserve(p.cell.size() * 3);
  for (double v : p.cell) {
    std::array<std::uint8_t, 3> c{255, 255, 255};
    if (std::isfinite(v) && v > 0) {
      c = change ? diverging(std::log(v) / hi) : sequential((std::log(v) - lo) / (hi - lo));
    } else if (change) {
      c = {200, 200, 200};
    }
    rgb.insert(rgb.end(), c.begin(), c.end());
  }
  return encode_png_rgb(p.n, p.n, rgb);
}

// The picture's key: the colour bar, its values at both ends and the middle, and which way is slow.
std::string legend_svg(bool change, double lo, double hi, bool seconds) {
  std::string s = fmt::format("<svg class=\"legend\" width=\"{}\" height=\"50\" viewBox=\"0 0 480 50\" role=\"img\" "
                              "aria-label=\"colour key: {}\">",
                              kSide, change ? "blue faster, white unchanged, red slower" : "light fast, dark slow");
  for (int i = 0; i < 48; ++i) {
    const double t = (i + 0.5) / 48.0;
    const auto c = change ? diverging(2 * t - 1) : sequential(t);
    s += fmt::format("<rect x=\"{}\" y=\"0\" width=\"10\" height=\"16\" fill=\"rgb({},{},{})\"/>", i * 10, c[0], c[1], c[2]);
  }
  auto label = [&](double lg) {
    return change ? fmt::format("{:.2f}x", std::exp(lg)) : (seconds ? format_seconds(std::exp(lg)) : fmt::format("{:.3g}", std::exp(lg)));
  };
  s += fmt::format("<text x=\"0\" y=\"30\" font-size=\"12\">{}</text>", esc(label(lo)));
  s += fmt::format("<text x=\"240\" y=\"30\" font-size=\"12\" text-anchor=\"middle\">{}</text>", esc(label((lo + hi) / 2)));
  s += fmt::format("<text x=\"480\" y=\"30\" font-size=\"12\" text-anchor=\"end\">{}</text>", esc(label(hi)));
  s += fmt::format("<text class=\"fast\" x=\"0\" y=\"46\" font-size=\"12\">&#8592; {}</text>", change ? "faster" : "fast");
  if (change) s += "<text x=\"240\" y=\"46\" font-size=\"12\" text-anchor=\"middle\">unchanged</text>";
  s += fmt::format("<text class=\"slow\" x=\"480\" y=\"46\" font-size=\"12\" text-anchor=\"end\">{} &#8594;</text>",
                   change ? "slower" : "slow (darker)");
  return s + "</svg>";
}

// Tick labels along an axis, at the centre of their entries (fraction of the side): one per entry
// (host and rank) when they fit, else one per run of entries of one host (a node), every k-th so
// that two are kTickGap px apart at least.
std::vector<std::pair<double, std::string>> axis_ticks(const Picture& p) {
  const std::size_t N = p.axis_id.size();
  const bool each = N * kTickGap <= static_cast<std::size_t>(kSide);
  std::vector<std::pair<double, std::string>> ticks;
  double last = -1.0;
  for (std::size_t i = 0; i < N;) {
    std::size_t j = i + 1;
    if (!each && !p.axis_host[i].empty())
      while (j < N && p.axis_host[j] == p.axis_host[i]) ++j;
    const double pos = (double(i) + double(j)) / 2.0 / double(N);
    const std::string& host = p.axis_host[i];
    std::string text = j > i + 1 || p.axis_id[i].empty() ? host : (host.empty() ? p.axis_id[i] : host + " " + p.axis_id[i]);
    if (last < 0 || (pos - last) * kSide >= kTickGap) ticks.emplace_back(pos, std::move(text)), last = pos;
    i = j;
  }
  return ticks;
}

// The picture with its tick labels: rows (senders) left of it, columns (receivers) above it.
std::string ticked_image(const std::string& id, const Picture& p, const std::string& png) {
  std::string rows, cols;
  for (const auto& [pos, text] : axis_ticks(p)) {
    // (a long host name is cut at the label's width; the whole name shows on hovering)
    rows += fmt::format("<span class=\"tick\" style=\"top:{:.1f}px\" title=\"{}\">{}</span>", 64 + pos * kSide,
                        esc(text), esc(text));
    cols += fmt::format("<span class=\"tick\" style=\"left:{:.1f}px\" title=\"{}\">{}</span>", 100 + pos * kSide,
                        esc(text), esc(text));
  }
  return fmt::format("<div class=\"mx\"><div class=\"ticks rows\">{}</div><div class=\"ticks cols\">{}</div><img id=\"{}\" "
                     "class=\"matrix\" width=\"{}\" height=\"{}\" alt=\"{}\" src=\"data:image/png;base64,{}\"></div>",
                     rows, cols, id, kSide, kSide, esc(p.caption), base64(png));
}

std::string figure(const std::string& id, const Picture& p, bool change, bool seconds) {
  double lo = 0, hi = 1;
  const std::string png = picture_png(p, change, lo, hi);
  return fmt::format("<figure>{}<br>{}<figcaption>{}</figcaption></figure>\n", ticked_image(id, p, png),
                     legend_svg(change, lo, hi, seconds), esc(p.caption));
}

// The tick labels of ranks in `order`: their hosts (when known) and rank numbers.
void rank_axis(Picture& p, const std::vector<int>& order, const std::vector<std::string>& hosts) {
  for (int r : order) {
    p.axis_host.push_back(hosts.size() > static_cast<std::size_t>(r) ? hosts[static_cast<std::size_t>(r)] : "");
    p.axis_id.push_back(std::to_string(r));
  }
}

// The matrices of `file` at its shortest and longest length, ordered by the topology.
std::string delay_figures(const std::string& file, const Topology& t, const std::vector<std::string>& hosts,
                          const std::string& id_prefix, std::string& why_not, const std::string& whose = "") {
  std::unique_ptr<Dataset> d;
  try {
    d = open_dataset(file);
  } catch (const Error& e) {
    why_not = e.what();
    return {};
  }
  if (d->ranks() != t.P || d->count() == 0) {
    why_not = file + " no longer holds the analysed data";
    return {};
  }
  std::size_t kmin = 0, kmax = 0;
  for (std::size_t k = 0; k < d->count(); ++k) {
    if (d->lengths()[k] < d->lengths()[kmin]) kmin = k;
    if (d->lengths()[k] > d->lengths()[kmax]) kmax = k;
  }
  const auto order = topology_order(t, d->ranks());
  std::string out;
  int n = 0;
  for (std::size_t k : kmin == kmax ? std::vector<std::size_t>{kmin} : std::vector<std::size_t>{kmin, kmax}) {
    const Matrix m = d->matrix(k);
    Picture p = block_picture(order, [&](int i, int j) { return i == j ? std::nan("") : m.at(i, j); });
    rank_axis(p, order, hosts);
    p.caption = fmt::format("{}elay at {} (sender down, receiver across; ranks ordered by the groups found{}), log "
                            "colour scale, darker is slower",
                            whose.empty() ? "D" : whose + ": d", format_bytes(d->lengths()[k]),
                            d->ranks() > kMaxCells ? fmt::format("; {} ranks averaged into {} cells per side", d->ranks(), p.n)
                                                   : std::string());
    out += figure(fmt::format("{}{}", id_prefix, n++), p, false, true);
  }
  return out;
}

constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; max-width: 62em; margin: 1em auto; padding: 0 1em; color: #111; background: #fff; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; border-bottom: 1px solid #aaa; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.4em 0; }
#findings { table-layout: fixed; width: 100%; } #findings td { overflow-wrap: anywhere; }
#findings th:nth-child(1) { width: 8em; } #findings th:nth-child(2) { width: 4.5em; } #findings th:nth-child(3) { width: 6em; }
#findings th:nth-child(4) { width: 9em; } #findings th:nth-child(5) { width: 11em; } #findings th:nth-child(7) { width: 104px; }
img.where { image-rendering: pixelated; display: block; border: 1px solid #999; } td, th { border: 1px solid #999; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #eee; } .num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { font-size: 1.1em; font-weight: bold; padding: 0.4em 0.6em; border: 2px solid; display: inline-block; }
.ok { color: #14532d; border-color: #14532d; } .bad { color: #8b0000; border-color: #8b0000; }
figure { display: inline-block; margin: 0.5em 1em 0.5em 0; vertical-align: top; }
figcaption { font-size: 0.85em; max-width: 440px; }
img.matrix { image-rendering: pixelated; image-rendering: crisp-edges; border: 1px solid #333; }
.mx { position: relative; display: inline-block; padding: 64px 0 0 100px; }
.ticks .tick { position: absolute; font-size: 10px; line-height: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.ticks.rows .tick { left: 0; width: 96px; text-align: right; transform: translateY(-50%); }
figure > svg.legend, figure > figcaption { margin-left: 100px; }
.ticks.cols .tick { top: 0; height: 60px; writing-mode: vertical-rl; text-align: right; transform: translateX(-50%); }
.small { font-size: 0.85em; color: #333; }
@media print { body { max-width: none; } figure, table { break-inside: avoid; } }
</style>
)";

std::string page_head(const std::string& title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n{}</head>\n<body>\n<h1>{}</h1>\n",
                     esc(title), kStyle, esc(title));
}

// A check for tools (headless browsers): once loaded, the body says how many pictures decoded,
// and each picture where it is on the page (data-box: left, top, width, height in px).
constexpr const char* kFoot =
    "<script>window.addEventListener('load', function () { var n = 0, i = document.images;"
    " for (var k = 0; k < i.length; ++k) { if (i[k].complete && i[k].naturalWidth > 0) ++n;"
    " var b = i[k].getBoundingClientRect(); i[k].setAttribute('data-box', [b.left + scrollX, b.top + scrollY,"
    " b.width, b.height].map(Math.round).join(',')); }"
    " document.body.setAttribute('data-pictures-decoded', String(n)); });</script>\n</body>\n</html>\n";

std::string groups_text(const std::vector<int>& g, const std::vector<std::string>& hosts) {
  std::string s = g.size() <= 16 ? fmt::format("{}", fmt::join(g, ","))
                                 : fmt::format("{},... ({} ranks)", fmt::join(std::vector<int>(g.begin(), g.begin() + 16), ","), g.size());
  if (!hosts.empty()) {
    std::set<std::string> h;
    for (int r : g) h.insert(hosts[static_cast<std::size_t>(r)]);
    std::vector<std::string> v(h.begin(), h.end());
    if (v.size() > 6) v.resize(6), v.push_back("...");
    s += fmt::format(" [{}]", fmt::join(v, ","));
  }
  return s;
}

std::string topology_section(const Topology& t, const std::vector<std::string>& hosts, const std::string& title) {
  std::string o = fmt::format("<h2>{}</h2>\n", esc(title));
  for (std::size_t l = 0; l < t.levels.size(); ++l) {
    const auto& lv = t.levels[l];
    o += fmt::format("<p><b>{} level</b>: {} group(s)</p>\n<table><tr><th>group</th><th>ranks [hosts]</th></tr>\n",
                     esc(lv.name), lv.groups.size());
    for (std::size_t g = 0; g < lv.groups.size() && g < 64; ++g)
      o += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td></tr>\n", g, esc(groups_text(lv.groups[g], hosts)));
    if (lv.groups.size() > 64) o += fmt::format("<tr><td></td><td>... {} more</td></tr>\n", lv.groups.size() - 64);
    o += "</table>\n";
  }
  return o;
}

std::string model_section(const Report& r) {
  std::string o = "<h2>Protocol thresholds and Hockney / LogP parameters</h2>\n";
  o += "<table><tr><th>class</th><th>pairs</th><th>L + 2o</th><th>thresholds</th><th>range</th><th>ts</th>"
       "<th>bandwidth</th><th>fit</th></tr>\n";
  for (const auto& f : r.hockney.classes) {
    const ClassParams* p = nullptr;
    for (const auto& x : r.params)
      if (x.name == f.name) p = &x;
    std::vector<std::string> th;
    for (const auto& t : f.thresholds) th.push_back(fmt::format("{} ({}{:+.0f}%)", format_bytes(t.length), t.slope ? "slope " : "",
                                                                 100 * (t.slope ? t.slope_change : t.jump)));
    const std::string ths = th.empty() ? "none" : fmt::format("{}", fmt::join(th, ", "));
    for (std::size_t g = 0; g < std::max<std::size_t>(1, f.ranges.size()); ++g) {
      o += "<tr>";
      if (g == 0) {
        const auto span = std::max<std::size_t>(1, f.ranges.size());
        o += fmt::format("<td rowspan=\"{0}\">{1}</td><td rowspan=\"{0}\" class=\"num\">{2}</td><td rowspan=\"{0}\" "
                         "class=\"num\">{3}</td><td rowspan=\"{0}\">{4}</td>",
                         span, esc(f.name), f.pairs, p ? esc(format_seconds(p->t0)) : "-", esc(ths));
      }
      if (g < f.ranges.size()) {
        const auto& rg = f.ranges[g];
        const std::string ts = !std::isfinite(rg.fit.ts) ? "n/a" : (rg.fit.ts_identifiable ? format_seconds(rg.fit.ts) : "not ident.");
        const std::string bw = !std::isfinite(rg.fit.tw) ? "n/a"
                               : (rg.fit.tw_identifiable && rg.fit.tw > 0 ? format_bandwidth(1.0 / rg.fit.tw) : "not ident.");
        o += fmt::format("<td>{} .. {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{} ({:.1f}%)</td>",
                         esc(format_bytes(rg.from)), esc(format_bytes(rg.to)), esc(ts), esc(bw),
                         fit_quality(rg.fit.rel_rms), 100 * rg.fit.rel_rms);
      } else {
        o += "<td>-</td><td>-</td><td>-</td><td>-</td>";
      }
      o += "</tr>\n";
    }
  }
  o += "</table>\n<p class=\"small\">Hockney t = ts + m&middot;tw fitted on the class median curve (ts &ge; 0, tw &ge; 0; "
       "\"not ident.\": the data do not determine it). LogP: L + 2o is the delay of the shortest message; o and g are "
       "not identifiable from delays alone (network_analyze model --loggp).</p>\n";
  return o;
}

std::string notes_section(const std::vector<std::string>& notes) {
  if (notes.empty()) return {};
  std::string o = "<h2>Notes</h2>\n<ul>\n";
  for (const auto& n : notes) o += "<li>" + esc(n) + "</li>\n";
  return o + "</ul>\n";
}

std::string lengths_line(const std::vector<std::int64_t>& l) {
  if (l.empty()) return "-";
  if (l.size() == 1) return format_bytes(l.front());
  return fmt::format("{} .. {} ({} lengths)", format_bytes(l.front()), format_bytes(l.back()), l.size());
}

}  // namespace

std::string base64(const std::string& in) {
  static const char* T = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(std::uint8_t(in[i])) << 16) | (std::uint32_t(std::uint8_t(in[i + 1])) << 8) |
                            std::uint8_t(in[i + 2]);
    out += T[(v >> 18) & 63], out += T[(v >> 12) & 63], out += T[(v >> 6) & 63], out += T[v & 63];
  }
  if (i + 1 == in.size()) {
    const std::uint32_t v = std::uint32_t(std::uint8_t(in[i])) << 16;
    out += T[(v >> 18) & 63], out += T[(v >> 12) & 63], out += "==";
  } else if (i + 2 == in.size()) {
    const std::uint32_t v = (std::uint32_t(std::uint8_t(in[i])) << 16) | (std::uint32_t(std::uint8_t(in[i + 1])) << 8);
    out += T[(v >> 18) & 63], out += T[(v >> 12) & 63], out += T[(v >> 6) & 63], out += '=';
  }
  return out;
}

std::string encode_png_rgb(int w, int h, const std::vector<std::uint8_t>& rgb) {
  if (w <= 0 || h <= 0 || rgb.size() != static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3)
    throw Error("encode_png_rgb: the pixels do not match the size");
  std::string raw;
  raw.reserve(static_cast<std::size_t>(h) * (static_cast<std::size_t>(w) * 3 + 1));
  for (int y = 0; y < h; ++y) {
    raw += '\0';  // filter: none
    raw.append(reinterpret_cast<const char*>(rgb.data()) + static_cast<std::size_t>(y) * static_cast<std::size_t>(w) * 3,
               static_cast<std::size_t>(w) * 3);
  }
  uLongf len = compressBound(static_cast<uLong>(raw.size()));
  std::string z(len, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw Error("encode_png_rgb: zlib failed");
  z.resize(len);
  std::string png("\x89PNG\r\n\x1a\n", 8);
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(w));
  put32(ihdr, static_cast<std::uint32_t>(h));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, no filter method, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

// How much of the matrix the levels and the findings account for (the explanation check).
std::string explanation_paragraph(const Explanation& e) {
  if (!e.checked) return e.note.empty() ? std::string() : "<p id=\"explanation\">" + esc(e.note) + "</p>\n";
  return fmt::format("<p id=\"explanation\" data-explained-share=\"{:.4f}\">Explanation: the levels and the "
                     "findings predict <b>{:.1f} %</b> of the cells within the noise; {:.1f} % are slower than "
                     "predicted.{}</p>\n",
                     e.explained_share, 100 * e.explained_share, 100 * e.slow_share,
                     e.unexplained_pairs ? fmt::format(" {} rank pairs stay slower than predicted at most lengths.",
                                                       e.unexplained_pairs)
                                         : std::string());
}

std::string report_html(const Report& r) {
  const Cube& c = r.cube;
  std::string o = page_head("network_analyze report: " + r.source);
  o += fmt::format("<p>Mode {}, statistic {}, {} ranks, lengths {}. Made by network_analyze {}.</p>\n",
                   esc(std::string(mode_name(c.mode))), esc(std::string(statistic_name(c.statistic))), c.P,
                   esc(lengths_line(c.lengths)), version_string());
  if (r.anomalies.empty()) o += "<p class=\"verdict ok\" id=\"verdict\">No anomalies found</p>\n";
  else o += fmt::format("<p class=\"verdict bad\" id=\"verdict\">{} anomal{} found</p>\n", r.anomalies.size(),
                        r.anomalies.size() == 1 ? "y" : "ies");
  o += "<h2>Anomalies</h2>\n";
  o += html_parts::findings_table(r);
  o += explanation_paragraph(r.explanation);
  o += "<h2>Matrix</h2>\n";
  std::string why;
  const std::string figs = delay_figures(r.source, r.topology, r.hosts, "matrix", why);
  o += figs.empty() ? "<p>No picture: " + esc(why) + "</p>\n" : figs;
  o += topology_section(r.topology, r.hosts, topology_title(r.topology));
  o += "<p>Host names: " + esc(r.agreement.summary) + "</p>\n";
  o += model_section(r);
  o += notes_section(r.notes);
  return o + kFoot;
}

std::string compare_html(const Comparison& c) {
  std::string o = page_head("network_analyze compare: " + c.current);
  o += fmt::format("<p>Baseline <code>{}</code> ({} ranks), current <code>{}</code> ({} ranks); mode {}, statistic {}; "
                   "{} common lengths {}; {} common hosts, ranks matched by {}{}.</p>\n",
                   esc(c.baseline), c.P_baseline, esc(c.current), c.P_current, esc(std::string(mode_name(c.mode))),
                   esc(std::string(statistic_name(c.statistic))), c.lengths.size(), esc(lengths_line(c.lengths)),
                   c.hosts.size(), c.by_host ? "host name" : "rank number",
                   c.placement_differs ? " (the rank placement differs)" : "");
  if (c.findings.empty()) o += "<p class=\"verdict ok\" id=\"verdict\">No change beyond the runs' noise</p>\n";
  else o += fmt::format("<p class=\"verdict bad\" id=\"verdict\">{} finding{}</p>\n", c.findings.size(),
                        c.findings.size() == 1 ? "" : "s");
  o += "<h2>Findings</h2>\n";
  if (c.findings.empty()) o += "<p>None.</p>\n";
  else {
    o += "<table id=\"findings\"><tr><th>kind</th><th>hosts</th><th>ratio</th><th>sigmas</th><th>ranks now "
         "(baseline)</th><th>detail</th></tr>\n";
    for (const auto& f : c.findings)
      o += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{} ({})</td>"
                       "<td>{}; lengths {}</td></tr>\n",
                       esc(name_of(f.kind)), esc(text::hosts_text(f.hosts)),
                       f.sigmas > 0 || is_class_change(f.kind) ? fmt::format("{:.2f}x", f.ratio) : "-",
                       f.sigmas > 0 ? fmt::format("{:.0f}", f.sigmas) : "-", esc(groups_text(f.ranks_current, {})),
                       esc(groups_text(f.ranks_baseline, {})), esc(f.detail), esc(lengths_line(f.lengths)));
    o += "</table>\n";
  }
  // The change per host pair, hosts ordered by the baseline's groups.
  o += "<h2>Matrix</h2>\n";
  const std::size_t H = c.hosts.size();
  std::vector<int> order(H);
  std::iota(order.begin(), order.end(), 0);
  const Topology& tb = c.base.topology;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const int ra = c.ranks_baseline[static_cast<std::size_t>(a)].front(), rb = c.ranks_baseline[static_cast<std::size_t>(b)].front();
    for (std::size_t l = tb.levels.size(); l-- > 0;) {
      const int ga = tb.levels[l].group_of[static_cast<std::size_t>(ra)], gb = tb.levels[l].group_of[static_cast<std::size_t>(rb)];
      if (ga != gb) return ga < gb;
    }
    return a < b;
  });
  Picture p = block_picture(order, [&](int a, int b) { return double(c.ratio_matrix[static_cast<std::size_t>(a) * H + static_cast<std::size_t>(b)]); });
  for (int a : order) p.axis_host.push_back(c.hosts[static_cast<std::size_t>(a)]), p.axis_id.emplace_back();
  p.caption = fmt::format("Change current / baseline per host pair (sending host down, receiving host across; median over the "
                          "lengths and the hosts' rank pairs; red slower, blue faster, clipped at 2x){}",
                          H > static_cast<std::size_t>(kMaxCells) ? fmt::format("; {} hosts averaged into {} cells", H, p.n) : "");
  o += figure("change", p, true, false);
  std::string why;
  o += delay_figures(c.current, c.cur.topology, c.cur.hosts, "matrix", why, "Current run");
  o += "<h2>Classes</h2>\n<table><tr><th>class</th><th>host pairs</th><th>current / baseline</th><th>noise of the "
       "change</th></tr>\n";
  for (const auto& x : c.classes)
    o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:.1f}%</td></tr>\n",
                     esc(x.name), x.host_pairs, x.ratio, 100 * x.noise);
  o += "</table>\n";
  if (!c.missing.empty() || !c.added.empty())
    o += fmt::format("<p>Hosts missing now: {}; new hosts: {}</p>\n", esc(fmt::format("{}", fmt::join(c.missing, ","))),
                     esc(fmt::format("{}", fmt::join(c.added, ","))));
  o += topology_section(c.base.topology, c.base.hosts, "Topology of the baseline");
  o += topology_section(c.cur.topology, c.cur.hosts, "Topology of the current run");
  o += model_section(c.cur);
  o += notes_section(c.notes);
  return o + kFoot;
}

}  // namespace nt::analysis
