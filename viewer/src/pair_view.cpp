// The pair view: the curves of one or more sender -> receiver pairs over the message lengths,
// in the document's file and in the further files it overlays (Document::add_plot_file).
#include "nt/viewer/document.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/raw_file.hpp"
#include "nt/types.hpp"
#include "cell_values.hpp"
#include "rank_match.hpp"

namespace nt::viewer {

using detail::file_name;
using detail::host_match;

namespace {
using Pairs = std::vector<std::pair<int, int>>;

// The pairs of a pair plot: the spec's pair, then its further pairs once each. UsageError for a
// rank outside 0..P-1, a pair on the diagonal, or more than 64 curves over the `files` files.
Pairs plot_pairs(const ViewSpec& spec, int P, const std::filesystem::path& path, std::size_t files) {
  Pairs pairs{{spec.sender, spec.receiver}};
  for (const auto& pr : spec.more_pairs)
    if (std::find(pairs.begin(), pairs.end(), pr) == pairs.end()) pairs.push_back(pr);
  for (const auto& [s, r] : pairs) {
    for (int x : {s, r})
      if (x < 0 || x >= P)
        throw nt::UsageError(fmt::format("pair {},{}: rank {} is outside 0..{} of {}", s, r, x, P - 1, path.string()));
    if (s == r)
      throw nt::UsageError(fmt::format("pair {0},{0} is on the diagonal: a rank does not measure messages to itself, "
                                       "so there is nothing to plot; choose two different ranks",
                                       s));
  }
  constexpr std::size_t kMaxCurves = 64;
  if (pairs.size() * files > kMaxCurves)
    throw nt::UsageError(fmt::format("{} pairs x {} files make more than {} curves: plot fewer at a time", pairs.size(),
                                     files, kMaxCurves));
  return pairs;
}

// The name of file i of a plot: the file name, with its folder when two files share a name
// (before/run_median.nc, after/run_median.nc).
QString display_name(const std::vector<std::filesystem::path>& paths, std::size_t i) {
  const auto name = paths[i].filename();
  const bool shared = std::count_if(paths.begin(), paths.end(), [&](const auto& p) { return p.filename() == name; }) > 1;
  const auto dir = std::filesystem::absolute(paths[i]).parent_path().filename();
  return QString::fromStdString(shared ? (dir / name).string() : name.string());
}

std::string host_of(const nt::Dataset& d, int r) {
  const auto& h = d.meta().hosts;
  return r >= 0 && static_cast<std::size_t>(r) < h.size() ? h[static_cast<std::size_t>(r)] : std::string();
}

// The curve of ranks s -> r of d over the lengths lo..hi: bad delays as no data (NaN), the band
// of dev when it covers every point, the sample counts when d records them.
PlotCurve pair_curve(const nt::Dataset& d, const nt::Dataset* dev, int s, int r, std::int64_t lo, std::int64_t hi) {
  PlotCurve c;
  c.sender = s;
  c.receiver = r;
  const auto all = d.pair(s, r);
  std::vector<double> band;
  if (dev) band = dev->pair(s, r);
  const std::vector<int> counts = d.sample_count_of(s, r);
  for (std::size_t k = 0; k < d.count(); ++k) {
    if (d.lengths()[k] < lo || d.lengths()[k] > hi) continue;
    c.lengths.push_back(d.lengths()[k]);
    c.y.push_back(detail::good_or_nan(all[k]));
    if (k < band.size()) c.band.push_back(band[k]);
    if (!counts.empty()) c.samples.push_back(counts[k]);
  }
  if (c.band.size() != c.y.size()) c.band.clear();
  return c;
}

// "s -> r", with the hosts when d names them, and ", by host" when the ranks were renumbered
// to match the document's hosts.
QString pair_label(const nt::Dataset& d, int s, int r, bool renumbered) {
  QString ranks = QStringLiteral("%1 -> %2").arg(s).arg(r);
  const std::string hs = host_of(d, s), hr = host_of(d, r);
  if (!hs.empty() && !hr.empty())
    ranks += QStringLiteral(" (%1 -> %2)").arg(QString::fromStdString(hs), QString::fromStdString(hr));
  if (renumbered) ranks += QStringLiteral(", by host");
  return ranks;
}

// A pair plot being built file by file: the pairs, the window of lengths, the curves.
struct PairPlot {
  Pairs pairs;
  std::int64_t lo = 0, hi = 0;
  std::vector<std::filesystem::path> paths;  // the document's file first, then the added files
  std::vector<PlotCurve> curves;
  std::set<std::string> stats;  // statistic of every file
  bool any_band = false;

  bool several_files() const { return paths.size() > 1; }
  // Adds the curve of every pair in file `source` (0: the document's file `primary`), whose
  // deviation file is dev. The ranks of another file are matched by host when both ranks'
  // hosts are in both files, else taken by number; UsageError when it holds neither.
  void add_file(std::size_t source, const nt::Dataset& d, const nt::Dataset* dev, const nt::Dataset& primary) {
    stats.insert(std::string(nt::statistic_name(d.params().statistic)));
    const std::vector<int> by_host = source == 0 ? std::vector<int>{} : host_match(primary, d);
    for (const auto& [s0, r0] : pairs) {
      int s = s0, r = r0;
      bool mapped = false;
      if (source != 0) {
        const int ms = by_host.empty() ? -1 : by_host[static_cast<std::size_t>(s0)];
        const int mr = by_host.empty() ? -1 : by_host[static_cast<std::size_t>(r0)];
        if (ms >= 0 && mr >= 0) {
          s = ms;
          r = mr;
          mapped = true;
        } else if (s0 >= d.ranks() || r0 >= d.ranks()) {
          throw nt::UsageError(fmt::format("{} has {} ranks and names {}: pair {},{} of {} is in neither by number nor "
                                           "by host",
                                           paths[source].string(), d.ranks(), by_host.empty() ? "no hosts" : "other hosts",
                                           s0, r0, file_name(paths[0])));
        }
      }
      PlotCurve c = pair_curve(d, dev, s, r, lo, hi);
      c.file = display_name(paths, source);
      c.source = static_cast<int>(source);
      any_band = any_band || !c.band.empty();
      const QString ranks = pair_label(d, s, r, mapped && (s != s0 || r != r0));
      c.label = several_files() ? c.file + QStringLiteral(": ") + ranks : ranks;
      c.color = curves.size();
      curves.push_back(std::move(c));
    }
  }

  // The title of a plot of several curves (one curve: the view's title); `what`: the mode.
  QString several_curves_title(const QString& what) const {
    if (!several_files())
      return QStringLiteral("%1: %2 pairs (%3, %4)")
          .arg(QString::fromStdString(file_name(paths[0])))
          .arg(pairs.size())
          .arg(QString::fromStdString(*stats.begin()), what);
    return pairs.size() == 1 ? QStringLiteral("pair %1 -> %2 in %3 files (%4)")
                                   .arg(pairs[0].first)
                                   .arg(pairs[0].second)
                                   .arg(paths.size())
                                   .arg(what)
                             : QStringLiteral("%1 pairs in %2 files (%3)").arg(pairs.size()).arg(paths.size()).arg(what);
  }
};
}  // namespace

ViewResult Document::render_pair(const ViewSpec& spec) {
  PairPlot plot;
  plot.pairs = plot_pairs(spec, ranks(), path_, 1 + plot_files_.size());
  // A window narrower than this file's sweep clips every file's curve to its lengths; the whole
  // sweep shows every file whole (another run may go further).
  const bool whole = spec.k0 == 0 && spec.k1 == count();
  plot.lo = whole ? 0 : lengths()[spec.k0];
  plot.hi = whole ? std::numeric_limits<std::int64_t>::max() : lengths()[spec.k1 - 1];
  plot.paths.push_back(path_);
  for (const auto& f : plot_files_) plot.paths.push_back(f.path);
  plot.add_file(0, *data_, dev_is_self_ ? nullptr : deviation(), *data_);
  for (std::size_t i = 0; i < plot_files_.size(); ++i)
    plot.add_file(i + 1, *plot_files_[i].data, plot_files_[i].dev.get(), *data_);

  PlotStyle st;
  st.y_log = spec.log;
  st.y_what = plot.stats.size() == 1 ? QString::fromStdString(*plot.stats.begin()) + QStringLiteral(" delay")
                                     : QStringLiteral("delay");
  if (plot.any_band)
    st.band_label = plot.several_files() ? QString::fromUtf8("±1 standard deviation (each file's _deviation.nc)")
                                         : QString::fromUtf8("±1 standard deviation (%1)")
                                               .arg(QString::fromStdString(file_name(dev_path_)));
  st.title = plot.curves.size() == 1
                 ? title_for(spec)
                 : plot.several_curves_title(QString::fromLatin1(nt::mode_name(data_->params().mode).data()));
  st.note = cut_short_note(*data_);
  ViewResult res;
  res.spec = spec;
  res.plot = true;
  res.diag_col = ViewResult::kNoDiag;
  res.title = st.title;
  res.note = st.note;
  res.plot_style = st;
  res.plot_width = plot_w_;
  res.plot_height = plot_h_;
  res.rows = static_cast<int>(plot.curves.size());
  res.cols = 0;
  for (const auto& c : plot.curves) res.cols = std::max(res.cols, static_cast<int>(c.y.size()));
  res.values = std::make_shared<const std::vector<double>>(plot.curves.front().y);
  res.row_lengths = plot.curves.front().lengths;
  res.curves = std::move(plot.curves);
  return res;
}

}  // namespace nt::viewer
