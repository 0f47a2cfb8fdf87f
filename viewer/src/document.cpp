#include "nt/viewer/document.hpp"

#include "nt/validate.hpp"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nt/error.hpp"
#include "nt/viewer/plot.hpp"
#include "nt/viewer/pyramid.hpp"
#include "nt/hosts.hpp"
#include "nt/result_set.hpp"
#include "nt/raw_file.hpp"
#include "nt/types.hpp"
#include "nt/units.hpp"

namespace nt::viewer {

std::vector<std::vector<int>> read_groups(const std::filesystem::path& path, int ranks) {
  std::ifstream in(path);
  if (!in) throw nt::FileError(path, "cannot open the groups file");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw nt::FileError(path, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("groups") || !j["groups"].is_array())
    throw nt::FileError(path, "expected a JSON object with a \"groups\" list of lists of ranks");
  std::vector<std::vector<int>> groups;
  for (const auto& g : j["groups"]) {
    if (!g.is_array()) throw nt::FileError(path, "every entry of \"groups\" must be a list of ranks");
    std::vector<int> ranks_of;
    for (const auto& r : g) {
      if (!r.is_number_integer()) throw nt::FileError(path, "ranks in \"groups\" must be integers");
      const int v = r.get<int>();
      if (v < 0 || v >= ranks)
        throw nt::FileError(path, fmt::format("rank {} in \"groups\" is outside 0..{}", v, ranks - 1));
      ranks_of.push_back(v);
    }
    groups.push_back(std::move(ranks_of));
  }
  return groups;
}

namespace {
std::vector<std::vector<int>> parse_groups(const nlohmann::json& arr, const std::filesystem::path& path, int ranks,
                                           const char* where) {
  if (!arr.is_array()) throw nt::FileError(path, fmt::format("\"{}\" must be a list of lists of ranks", where));
  std::vector<std::vector<int>> groups;
  std::vector<char> seen(static_cast<std::size_t>(ranks), 0);
  for (const auto& g : arr) {
    if (!g.is_array()) throw nt::FileError(path, fmt::format("every entry of \"{}\" must be a list of ranks", where));
    std::vector<int> of;
    for (const auto& r : g) {
      if (!r.is_number_integer()) throw nt::FileError(path, fmt::format("ranks in \"{}\" must be integers", where));
      const long long v = r.get<long long>();
      if (v < 0 || v >= ranks)
        throw nt::FileError(path, fmt::format("rank {} in \"{}\" is outside 0..{}", v, where, ranks - 1));
      if (seen[static_cast<std::size_t>(v)]++)
        throw nt::FileError(path, fmt::format("rank {} appears twice in \"{}\"", v, where));
      of.push_back(static_cast<int>(v));
    }
    groups.push_back(std::move(of));
  }
  return groups;
}
nlohmann::json load_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw nt::FileError(path, "cannot open the groups file");
  try {
    nlohmann::json j;
    in >> j;
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw nt::FileError(path, std::string("not valid JSON: ") + e.what());
  }
}

// "node10" after "node9": digit runs compare by value.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i1 = i, j1 = j;
      while (i1 < a.size() && a[i1] == '0') ++i1;
      while (j1 < b.size() && b[j1] == '0') ++j1;
      std::size_t i2 = i1, j2 = j1;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      if (i2 - i1 != j2 - j1) return i2 - i1 < j2 - j1;
      const int c = a.compare(i1, i2 - i1, b, j1, j2 - j1);
      if (c != 0) return c < 0;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}
}  // namespace

std::vector<std::pair<std::string, std::vector<std::vector<int>>>> read_hierarchy(const std::filesystem::path& path,
                                                                                 int ranks) {
  const nlohmann::json j = load_json(path);
  if (!j.is_object()) throw nt::FileError(path, "expected a JSON object with \"groups\" or \"hierarchy\"");
  std::vector<std::pair<std::string, std::vector<std::vector<int>>>> levels;
  if (j.contains("hierarchy")) {
    if (!j["hierarchy"].is_array()) throw nt::FileError(path, "\"hierarchy\" must be a list of levels");
    for (const auto& l : j["hierarchy"]) {
      if (!l.is_object() || !l.contains("groups"))
        throw nt::FileError(path, "every level of \"hierarchy\" needs \"groups\"");
      const std::string name = l.contains("level") && l["level"].is_string() ? l["level"].get<std::string>()
                                                                             : fmt::format("level {}", levels.size());
      levels.emplace_back(name, parse_groups(l["groups"], path, ranks, "hierarchy"));
    }
  }
  if (levels.empty()) {
    if (!j.contains("groups"))
      throw nt::FileError(path, "expected a JSON object with a \"groups\" list of lists of ranks");
    levels.emplace_back("group", parse_groups(j["groups"], path, ranks, "groups"));
  }
  return levels;
}

std::vector<int> rank_order(Order order, int P, const std::vector<std::string>& hosts,
                            const std::vector<std::pair<std::string, std::vector<std::vector<int>>>>& hierarchy) {
  std::vector<int> o(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) o[static_cast<std::size_t>(i)] = i;
  if (order == Order::rank) return o;
  if (order == Order::host) {
    if (static_cast<int>(hosts.size()) != P)
      throw nt::UsageError("--order host: the file knows no host names (no hosts variable or <prefix>_hosts.txt)");
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) {
      const auto& ha = hosts[static_cast<std::size_t>(a)];
      const auto& hb = hosts[static_cast<std::size_t>(b)];
      return ha != hb && natural_less(ha, hb);
    });
    return o;
  }
  if (hierarchy.empty()) throw nt::UsageError("--order groups needs the analysed groups (--groups REPORT.json)");
  // key[level][rank]: index of the group holding the rank at that level (ungrouped: last).
  // A group's index is its position in the sort of the level, i.e. in order of the smallest
  // rank it holds, so the picture does not depend on how the analysis numbered its groups.
  std::vector<std::vector<int>> key;
  for (auto it = hierarchy.rbegin(); it != hierarchy.rend(); ++it) {
    std::vector<int> k(static_cast<std::size_t>(P), std::numeric_limits<int>::max());
    const auto& groups = it->second;
    std::vector<std::size_t> gi(groups.size());
    for (std::size_t g = 0; g < gi.size(); ++g) gi[g] = g;
    auto low = [&](std::size_t g) { return groups[g].empty() ? P : *std::min_element(groups[g].begin(), groups[g].end()); };
    std::stable_sort(gi.begin(), gi.end(), [&](std::size_t a, std::size_t b) { return low(a) < low(b); });
    for (std::size_t rank_of_g = 0; rank_of_g < gi.size(); ++rank_of_g)
      for (int r : groups[gi[rank_of_g]]) k[static_cast<std::size_t>(r)] = static_cast<int>(rank_of_g);
    key.push_back(std::move(k));
  }
  std::stable_sort(o.begin(), o.end(), [&](int a, int b) {
    for (const auto& k : key)
      if (k[static_cast<std::size_t>(a)] != k[static_cast<std::size_t>(b)])
        return k[static_cast<std::size_t>(a)] < k[static_cast<std::size_t>(b)];
    return a < b;
  });
  return o;
}

const std::vector<int>& Document::order_for(Order o) {
  if (order_cache_.size() != static_cast<std::size_t>(ranks()) || order_cached_ != o) {
    order_cache_ = rank_order(o, ranks(), data_->info().meta.hosts, hierarchy_);
    order_cached_ = o;
  }
  return order_cache_;
}

std::unique_ptr<Document> Document::open(const std::filesystem::path& path) {
  return adopt(nt::open_dataset(path), path);
}

std::unique_ptr<Document> Document::adopt(std::unique_ptr<nt::Dataset> data, const std::filesystem::path& path) {
  std::unique_ptr<Document> d(new Document);
  d->data_ = std::move(data);
  d->path_ = path;
  if (d->data_->ranks() <= 0) throw nt::FileError(path, "the file holds no ranks");
  if (d->data_->count() == 0) throw nt::FileError(path, "the file holds no message lengths (no complete record)");
  d->dev_is_self_ = d->data_->params().statistic == nt::Statistic::deviation;
  return d;
}

const nt::Dataset* Document::deviation() {
  if (dev_is_self_) return data_.get();
  if (!dev_tried_) {
    dev_tried_ = true;
    if (const auto candidate = nt::ResultSet::of(path_).find_statistic(nt::Statistic::deviation, path_)) {
      try {
        auto dv = nt::open_dataset(*candidate);
        if (dv->ranks() == ranks() && dv->lengths() == lengths()) {
          dev_ = std::move(dv);
          dev_path_ = *candidate;
        }
      } catch (const nt::Error&) {
        // A broken deviation file beside the data only disables the band and the map.
      }
    }
  }
  return dev_.get();
}

namespace {
std::string file_name(const std::filesystem::path& p) { return p.filename().string(); }

// Why the ranks of `a` cannot be matched by host to those of `b` (for messages).
std::string no_host_match(const nt::Dataset& a, const std::filesystem::path& pa, const nt::Dataset& b,
                          const std::filesystem::path& pb, int matched) {
  for (const auto& [d, p] : {std::pair{&a, &pa}, std::pair{&b, &pb}})
    if (d->meta().hosts.size() != static_cast<std::size_t>(d->ranks()))
      return fmt::format("{} names no host per rank (no {} beside it)", file_name(*p),
                         file_name(nt::ResultSet::of(*p).hosts()));
  return fmt::format("only {} of the {} ranks of {} run on a host of {}", matched, a.ranks(), file_name(pa), file_name(pb));
}

// Ranks of `a` matched by host in `b` when both name a host for every rank; else empty.
std::vector<int> host_match(const nt::Dataset& a, const nt::Dataset& b) {
  const auto& ha = a.meta().hosts;
  const auto& hb = b.meta().hosts;
  if (ha.size() != static_cast<std::size_t>(a.ranks()) || hb.size() != static_cast<std::size_t>(b.ranks())) return {};
  return nt::match_ranks_by_host(ha, hb);
}
}  // namespace

void Document::set_compare(const std::filesystem::path& path) {
  auto c = nt::open_dataset(path);
  const int P = ranks(), Q = c->ranks();
  const std::vector<int> by_host = host_match(*data_, *c);
  const int matched = static_cast<int>(std::count_if(by_host.begin(), by_host.end(), [](int r) { return r >= 0; }));
  std::vector<int> map;
  std::string how;
  bool identity = true;
  for (int i = 0; i < static_cast<int>(by_host.size()); ++i) identity = identity && by_host[static_cast<std::size_t>(i)] == i;
  if (matched == P && P > 0) {
    map = by_host;
    how = identity && P == Q ? "ranks matched by host (same placement)"
                             : fmt::format("ranks matched by host ({} ranks here, {} there)", P, Q);
  } else if (P == Q) {
    map.resize(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i) map[static_cast<std::size_t>(i)] = i;
    how = by_host.empty() ? "ranks matched by number (no host names)" : "ranks matched by number (the hosts differ)";
  } else if (matched >= 2) {
    map = by_host;
    how = fmt::format("ranks matched by host: {} of {} ranks (the others show no data)", matched, P);
  } else {
    throw nt::UsageError(fmt::format("cannot compare {} ({} ranks) with {} ({} ranks): the shapes differ and the ranks "
                                     "cannot be matched by host: {}",
                                     path_.string(), P, path.string(), Q, no_host_match(*data_, path_, *c, path, matched)));
  }
  std::vector<std::ptrdiff_t> len(count(), -1);
  std::size_t common = 0;
  for (std::size_t k = 0; k < count(); ++k)
    if ((len[k] = c->index_of_length(lengths()[k])) >= 0) ++common;
  if (common == 0)
    throw nt::UsageError(fmt::format("cannot compare {} with {}: no message length in common ({} .. {} vs {} .. {})",
                                     path_.string(), path.string(), lengths().front(), lengths().back(),
                                     c->lengths().front(), c->lengths().back()));
  if (common < count()) how += fmt::format("; {} of {} lengths in common", common, count());
  cmp_ = std::move(c);
  cmp_path_ = path;
  cmp_rank_ = std::move(map);
  cmp_len_ = std::move(len);
  cmp_match_ = std::move(how);
  probe_tried_ = false;  // the probes need the compared file too
  probe_files_.reset();
  cache_.erase(Source::difference);
  cache_.erase(Source::ratio);
}

void Document::add_plot_file(const std::filesystem::path& path) {
  PlotFile f;
  f.path = path;
  f.data = nt::open_dataset(path);
  if (f.data->ranks() <= 0) throw nt::FileError(path, "the file holds no ranks");
  if (f.data->count() == 0) throw nt::FileError(path, "the file holds no message lengths (no complete record)");
  if (f.data->params().statistic != nt::Statistic::deviation) {
    if (const auto candidate = nt::ResultSet::of(path).find_statistic(nt::Statistic::deviation, path)) {
      try {
        auto dv = nt::open_dataset(*candidate);
        if (dv->ranks() == f.data->ranks() && dv->lengths() == f.data->lengths()) f.dev = std::move(dv);
      } catch (const nt::Error&) {
        // A broken deviation file only disables the band of this curve.
      }
    }
  }
  plot_files_.push_back(std::move(f));
}

void Document::set_groups(const std::filesystem::path& json) {
  hierarchy_ = read_hierarchy(json, ranks());
  groups_ = hierarchy_.front().second;
  order_cache_.clear();
}

QString cut_short_note(const nt::Dataset& d) {
  const nt::SweepCompleteness c = nt::sweep_completeness(d);
  if (!c.cut_short) return {};
  if (c.planned > 0)
    return QStringLiteral("cut short: %1 of %2 message lengths stored (the run stopped early)").arg(c.stored).arg(c.planned);
  return QStringLiteral("cut short: the run stopped before %1 (last stored: %2)")
      .arg(QString::fromStdString(nt::format_bytes(d.params().end_length)),
           d.lengths().empty() ? QStringLiteral("none") : QString::fromStdString(nt::format_bytes(d.lengths().back())));
}

DocumentInfo Document::info() const {
  DocumentInfo i;
  i.cut_short = cut_short_note(*data_);
  i.path = QString::fromStdString(path_.string());
  i.format = QString::fromStdString(data_->format());
  i.info = data_->info();
  i.lengths = data_->lengths();
  i.has_deviation = dev_ != nullptr || dev_is_self_;
  i.deviation_path = QString::fromStdString(dev_is_self_ ? path_.string() : dev_path_.string());
  i.compare_path = QString::fromStdString(cmp_path_.string());
  i.compare_match = QString::fromStdString(cmp_match_);
  for (const auto& f : plot_files_) i.plot_files.push_back(QString::fromStdString(f.path.string()));
  i.groups = groups_;
  for (const auto& [name, g] : hierarchy_) i.hierarchy.emplace_back(QString::fromStdString(name), g);
  return i;
}

std::size_t Document::index_of_length(std::int64_t bytes) const {
  const auto k = data_->index_of_length(bytes);
  if (k >= 0) return static_cast<std::size_t>(k);
  std::string list;
  const auto& l = lengths();
  for (std::size_t i = 0; i < l.size() && i < 12; ++i) list += (i ? ", " : "") + std::to_string(l[i]);
  if (l.size() > 12) list += fmt::format(", ... ({} lengths)", l.size());
  throw nt::UsageError(fmt::format("message length {} is not stored in {}; stored lengths: {}", bytes,
                                   path_.string(), list));
}

std::pair<std::size_t, std::size_t> Document::window_of_lengths(std::int64_t a, std::int64_t b) const {
  if (a > b) std::swap(a, b);
  const auto& l = lengths();
  std::size_t k0 = l.size(), k1 = 0;
  for (std::size_t k = 0; k < l.size(); ++k)
    if (l[k] >= a && l[k] <= b) {
      k0 = std::min(k0, k);
      k1 = std::max(k1, k + 1);
    }
  if (k0 >= k1)
    throw nt::UsageError(fmt::format("no stored message length lies in the window {},{} (stored: {} .. {})", a, b,
                                     l.front(), l.back()));
  return {k0, k1};
}

namespace {
// Bad delays (NaN, infinite, negative, absurd: nt/validate.hpp) are no data: drawn as such and
// never part of a scale or a difference.
std::vector<double>& as_missing(std::vector<double>& v) {
  for (double& x : v)
    if (!nt::is_good_delay(x)) x = std::numeric_limits<double>::quiet_NaN();
  return v;
}
}  // namespace

namespace {
// The value a difference or ratio view shows for x here and o in the compared run (no data:
// NaN). Equal values (the diagonal's 0 and 0 too) are a ratio of 1: no change.
double compared(bool difference, double x, double o) {
  return difference ? x - o
         : x == o   ? 1.0
         : o > 0    ? x / o
                    : std::numeric_limits<double>::quiet_NaN();
}
double good_or_nan(double v) { return nt::is_good_delay(v) ? v : std::numeric_limits<double>::quiet_NaN(); }
}  // namespace

std::vector<double> Document::block_values(Source s, std::size_t k, int r0, int r1) {
  const auto P = static_cast<std::size_t>(ranks());
  switch (s) {
    case Source::primary: {
      auto v = data_->rows(k, r0, r1);
      return std::move(as_missing(v));
    }
    case Source::deviation:
    case Source::relative_deviation: {
      const nt::Dataset* dv = deviation();
      if (!dv)
        throw nt::UsageError(fmt::format("no deviation file for {} (expected {})", path_.string(),
                                         nt::ResultSet::of(path_).statistic(nt::Statistic::deviation).string()));
      auto m = dv->rows(k, r0, r1);
      if (s == Source::relative_deviation) {
        if (dv == data_.get())
          throw nt::UsageError(fmt::format("{} is a deviation file: open the average or median file beside it for the "
                                           "relative deviation", path_.string()));
        const auto base = data_->rows(k, r0, r1);
        for (std::size_t i = 0; i < m.size(); ++i)
          m[i] = base[i] > 0 ? m[i] / base[i] : std::numeric_limits<double>::quiet_NaN();
      }
      return m;
    }
    case Source::difference:
    case Source::ratio: {
      if (!cmp_)
        throw nt::UsageError(fmt::format("the {} view needs a second run to compare with: open it with File > Compare "
                                         "with... (on the command line: --compare FILE)",
                                         s == Source::ratio ? "ratio" : "difference"));
      auto av = data_->rows(k, r0, r1);
      as_missing(av);
      const std::ptrdiff_t kb = k < cmp_len_.size() ? cmp_len_[k] : -1;
      if (kb < 0) {  // a length the other run does not hold: no data
        std::fill(av.begin(), av.end(), std::numeric_limits<double>::quiet_NaN());
        return av;
      }
      const auto Q = static_cast<std::size_t>(cmp_->ranks());
      const auto kbs = static_cast<std::size_t>(kb);
      // The compared run's rows of the matched ranks: one block when the ranks match one to one.
      bool same = Q == P;
      for (int i = 0; i < ranks() && same; ++i) same = cmp_rank_[static_cast<std::size_t>(i)] == i;
      std::vector<double> bv;
      if (same) {
        bv = cmp_->rows(kbs, r0, r1);
        as_missing(bv);
      }
      for (int i = r0; i < r1; ++i) {
        const int bi = cmp_rank_[static_cast<std::size_t>(i)];
        double* x = av.data() + static_cast<std::size_t>(i - r0) * P;
        if (bi < 0) {
          std::fill(x, x + P, std::numeric_limits<double>::quiet_NaN());
          continue;
        }
        std::vector<double> brow;
        const double* b = nullptr;
        if (same) {
          b = bv.data() + static_cast<std::size_t>(i - r0) * Q;
        } else {
          brow = cmp_->row(bi, kbs, kbs + 1);
          as_missing(brow);
          b = brow.data();
        }
        for (std::size_t j = 0; j < P; ++j) {
          const int bj = cmp_rank_[j];
          const double o = bj < 0 ? std::numeric_limits<double>::quiet_NaN() : b[static_cast<std::size_t>(bj)];
          x[j] = compared(s == Source::difference, x[j], o);
        }
      }
      return av;
    }
  }
  return {};
}

std::vector<double> Document::display_rows(Source s, std::size_t k, int i0, int i1, const std::vector<int>& o) {
  if (o.empty()) return block_values(s, k, i0, i1);
  const auto P = static_cast<std::size_t>(ranks());
  std::vector<double> out(static_cast<std::size_t>(i1 - i0) * P);
  for (int i = i0; i < i1; ++i) {
    const int r = o[static_cast<std::size_t>(i)];
    const auto in = block_values(s, k, r, r + 1);
    double* row = out.data() + static_cast<std::size_t>(i - i0) * P;
    for (std::size_t j = 0; j < P; ++j) row[j] = in[static_cast<std::size_t>(o[j])];
  }
  return out;
}

// The probes' own handles of the document's files: the GUI thread reads single cells through
// them while the worker thread renders with the document's.
struct Document::ProbeFiles {
  std::mutex mutex;
  std::unique_ptr<nt::Dataset> data, dev, cmp;
};

namespace {
class DocumentProbe final : public CellProbe {
 public:
  enum class Kind { primary, deviation, relative, difference, ratio };
  DocumentProbe(std::shared_ptr<Document::ProbeFiles> files, Kind kind, std::size_t k, std::ptrdiff_t kb,
                std::vector<int> order, std::vector<int> cmp_rank)
      : files_(std::move(files)), kind_(kind), k_(k), kb_(kb), order_(std::move(order)), cmp_rank_(std::move(cmp_rank)) {}

  double value(int row, int col) const override {
    const int s = rank(row), r = rank(col);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    std::lock_guard lock(files_->mutex);
    try {
      switch (kind_) {
        case Kind::primary: return good_or_nan(files_->data->value(s, r, k_));
        case Kind::deviation: return files_->dev ? files_->dev->value(s, r, k_) : nan;
        case Kind::relative: {
          if (!files_->dev) return nan;
          const double base = files_->data->value(s, r, k_);
          return base > 0 ? files_->dev->value(s, r, k_) / base : nan;
        }
        case Kind::difference:
        case Kind::ratio: {
          const double x = good_or_nan(files_->data->value(s, r, k_));
          if (!files_->cmp || kb_ < 0) return nan;
          const int bs = cmp_rank_[static_cast<std::size_t>(s)], br = cmp_rank_[static_cast<std::size_t>(r)];
          const double o = bs < 0 || br < 0 ? nan : good_or_nan(files_->cmp->value(bs, br, static_cast<std::size_t>(kb_)));
          return compared(kind_ == Kind::difference, x, o);
        }
      }
    } catch (const std::exception&) {
      // A read that fails now (the file changed under us) shows as no data in the hover.
    }
    return nan;
  }

  std::optional<int> samples(int row, int col) const override {
    if (kind_ != Kind::primary) return std::nullopt;
    std::lock_guard lock(files_->mutex);
    const auto* raw = dynamic_cast<const nt::RawReader*>(files_->data.get());
    if (!raw || !raw->has_sample_count()) return std::nullopt;
    try {
      const auto c = raw->sample_count_of(rank(row), rank(col));
      if (k_ < c.size()) return c[k_];
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }

 private:
  int rank(int pos) const { return order_.empty() ? pos : order_[static_cast<std::size_t>(pos)]; }
  std::shared_ptr<Document::ProbeFiles> files_;
  Kind kind_;
  std::size_t k_;
  std::ptrdiff_t kb_;
  std::vector<int> order_, cmp_rank_;
};
}  // namespace

std::shared_ptr<const CellProbe> Document::probe_for(Source s, std::size_t k, const std::vector<int>& order) {
  if (!probe_tried_) {
    probe_tried_ = true;
    try {
      auto f = std::make_shared<ProbeFiles>();
      f->data = nt::open_dataset(path_);
      if (f->data->ranks() != ranks() || f->data->lengths() != lengths()) throw nt::Error("changed");
      if (dev_ && !dev_is_self_) f->dev = nt::open_dataset(dev_path_);
      if (dev_is_self_) f->dev = nt::open_dataset(path_);
      if (cmp_) f->cmp = nt::open_dataset(cmp_path_);
      probe_files_ = std::move(f);
    } catch (const std::exception&) {
      probe_files_.reset();  // data not from a file (adopted): no exact values on demand
    }
  }
  if (!probe_files_) return nullptr;
  using K = DocumentProbe::Kind;
  const K kind = s == Source::primary             ? K::primary
                 : s == Source::deviation          ? K::deviation
                 : s == Source::relative_deviation ? K::relative
                 : s == Source::difference         ? K::difference
                                                   : K::ratio;
  const std::ptrdiff_t kb = k < cmp_len_.size() ? cmp_len_[k] : -1;
  return std::make_shared<DocumentProbe>(probe_files_, kind, k, kb, order, cmp_rank_);
}

bool Document::streams(const ViewSpec& spec) const {
  const bool matrix_like = spec.view == ViewKind::matrix || spec.view == ViewKind::deviation ||
                           spec.view == ViewKind::difference || spec.view == ViewKind::ratio;
  return matrix_like && (ranks() > value_limit_ || reduction_factor(ranks(), ranks(), spec.fit) >= 2);
}

Range Document::matrix_range(Source s, std::size_t k) {
  auto& c = cache_[s];
  if (c.size() != count()) c.assign(count(), std::nullopt);
  if (!c[k]) {
    const int P = ranks();
    if (P <= value_limit_) {
      const auto v = matrix_values(s, k);
      c[k] = range_of(v, P, P, ViewResult::kDiagIsRow);
    } else {
      // Blocks of about a million cells: the range of a big matrix without holding it.
      const int step = std::max(1, (1 << 20) / P);
      Range r;
      for (int i0 = 0; i0 < P; i0 += step) {
        const int i1 = std::min(P, i0 + step);
        const auto v = block_values(s, k, i0, i1);
        for (int i = i0; i < i1; ++i)
          r.merge(range_of(std::span<const double>(v).subspan(static_cast<std::size_t>(i - i0) * static_cast<std::size_t>(P),
                                                              static_cast<std::size_t>(P)),
                           1, P, i));
      }
      c[k] = r;
    }
  }
  return *c[k];
}

Range Document::scan(Source s, std::size_t k0, std::size_t k1, const Progress& progress) {
  Range r;
  for (std::size_t k = k0; k < k1; ++k) {
    if (progress.cancelled && progress.cancelled()) throw Cancelled{};
    r.merge(matrix_range(s, k));
    if (progress.report) progress.report(k - k0 + 1, k1 - k0);
  }
  return r;
}

QString Document::title_for(const ViewSpec& spec) const {
  const QString file = QFileInfo(QString::fromStdString(path_.string())).fileName();
  const QString what = QString::fromLatin1(nt::statistic_name(data_->params().statistic).data()) + ", " +
                       QString::fromLatin1(nt::mode_name(data_->params().mode).data());
  const auto len = [&](std::size_t k) { return QString::fromStdString(nt::format_bytes(lengths()[k])); };
  switch (spec.view) {
    case ViewKind::matrix:
      return QStringLiteral("%1: %2 at %3 (%4)").arg(file, QStringLiteral("matrix"), len(spec.k), what);
    case ViewKind::deviation:
      return QStringLiteral("%1: %2 at %3 (%4)")
          .arg(file, spec.relative ? QStringLiteral("relative deviation") : QStringLiteral("deviation"), len(spec.k),
               QString::fromLatin1(nt::mode_name(data_->params().mode).data()));
    case ViewKind::ratio:
    case ViewKind::difference: {
      // Runs are often named alike (before/run_median.nc, after/run_median.nc): then with folders.
      QString a = file, b = QString::fromStdString(file_name(cmp_path_));
      if (a == b) {
        a = QString::fromStdString((std::filesystem::absolute(path_).parent_path().filename() / path_.filename()).string());
        b = QString::fromStdString((std::filesystem::absolute(cmp_path_).parent_path().filename() / cmp_path_.filename()).string());
      }
      return (spec.view == ViewKind::ratio ? QStringLiteral("%1 / %2 at %3") : QStringLiteral("%1 - %2 at %3"))
          .arg(a, b, len(spec.k));
    }
    case ViewKind::row:
      return QStringLiteral("%1: row of sender %2 (%3)").arg(file).arg(spec.rank).arg(what);
    case ViewKind::column:
      return QStringLiteral("%1: column of receiver %2 (%3)").arg(file).arg(spec.rank).arg(what);
    case ViewKind::pair:
      return QStringLiteral("%1: %2 -> %3 (%4)").arg(file).arg(spec.sender).arg(spec.receiver).arg(what);
  }
  return file;
}

namespace {
// The host of the rank at each displayed position of a matrix-like view, when d names the host
// of every rank.
void name_axis_hosts(ViewResult& res, const nt::Dataset& d) {
  const int P = d.ranks();
  if (const auto& hosts = d.info().meta.hosts; static_cast<int>(hosts.size()) == P) {
    res.axis_hosts.resize(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i)
      res.axis_hosts[static_cast<std::size_t>(i)] = QString::fromStdString(hosts[static_cast<std::size_t>(res.rank_at(i))]);
  }
}
}  // namespace

ViewResult Document::render(const ViewSpec& spec_in, const Progress& progress) {
  ViewSpec spec = spec_in;
  const int P = ranks();
  const std::size_t n = count();
  if (spec.k1 == 0) {
    spec.k0 = 0;
    spec.k1 = n;
  }
  if (spec.k0 >= spec.k1 || spec.k1 > n)
    throw nt::UsageError(fmt::format("window of matrices [{}, {}) is outside the {} stored lengths", spec.k0, spec.k1, n));
  if (spec.k >= n) throw nt::UsageError(fmt::format("matrix index {} is outside the {} stored lengths", spec.k, n));
  const auto check_rank = [&](int r, const char* what) {
    if (r < 0 || r >= P) throw nt::UsageError(fmt::format("{} {} is outside 0..{}", what, r, P - 1));
  };

  ViewResult res;
  res.spec = spec;
  res.title = title_for(spec);
  res.note = cut_short_note(*data_);
  Source src = Source::primary;
  std::vector<double> values;
  if (spec.view == ViewKind::pair) return render_pair(spec);
  switch (spec.view) {
    case ViewKind::matrix:
    case ViewKind::deviation:
    case ViewKind::difference:
    case ViewKind::ratio:
      src = spec.view == ViewKind::matrix ? Source::primary
            : spec.view == ViewKind::deviation ? (spec.relative ? Source::relative_deviation : Source::deviation)
            : spec.view == ViewKind::ratio     ? Source::ratio
                                                : Source::difference;
      if ((src == Source::difference || src == Source::ratio) && cmp_ && cmp_len_[spec.k] < 0)
        throw nt::UsageError(fmt::format("{} holds no message length {} (matched: {})", cmp_path_.string(),
                                         lengths()[spec.k], cmp_match_));
      if (streams(spec)) return render_streamed(std::move(res), src, progress);
      values = matrix_values(src, spec.k);
      if (src == Source::primary)
        if (const auto* raw = dynamic_cast<const nt::RawReader*>(data_.get()); raw && raw->has_sample_count())
          res.samples = std::make_shared<const std::vector<int>>(raw->sample_count(spec.k));
      res.rows = res.cols = P;
      res.diag_col = ViewResult::kDiagIsRow;
      res.row_label = QStringLiteral("sender (from)");
      res.col_label = QStringLiteral("receiver (to)");
      break;
    case ViewKind::row:
    case ViewKind::column:
      check_rank(spec.rank, "rank");
      values = spec.view == ViewKind::row ? data_->row(spec.rank, spec.k0, spec.k1)
                                          : data_->column(spec.rank, spec.k0, spec.k1);
      as_missing(values);
      res.rows = static_cast<int>(spec.k1 - spec.k0);
      res.cols = P;
      res.diag_col = spec.rank;
      res.row_lengths.assign(lengths().begin() + static_cast<std::ptrdiff_t>(spec.k0),
                             lengths().begin() + static_cast<std::ptrdiff_t>(spec.k1));
      res.row_label = QStringLiteral("message length");
      res.col_label = spec.view == ViewKind::row ? QStringLiteral("receiver (to)") : QStringLiteral("sender (from)");
      break;
    case ViewKind::pair:
      break;
  }
  const bool symmetric = src == Source::difference;
  Range r;
  if (spec.normalize == Normalize::matrix) {
    r = range_of(values, res.rows, res.cols, res.diag_col);
    if (res.diag_col == ViewResult::kDiagIsRow) {
      auto& c = cache_[src];
      if (c.size() != n) c.assign(n, std::nullopt);
      c[spec.k] = r;
    }
  } else if (spec.normalize == Normalize::file) {
    r = scan(src, 0, n, progress);
  } else {
    r = scan(src, spec.k0, spec.k1, progress);
  }
  // Reorder the rank axes (levels do not depend on the order): one gather per row.
  if (spec.order != Order::rank) {
    const std::vector<int>& o = order_for(spec.order);
    const bool rows_are_ranks = res.diag_col == ViewResult::kDiagIsRow;
    std::vector<double> re(values.size());
    const std::size_t C = static_cast<std::size_t>(res.cols);
    for (int i = 0; i < res.rows; ++i) {
      const std::size_t src_row = static_cast<std::size_t>(rows_are_ranks ? o[static_cast<std::size_t>(i)] : i);
      const double* in = values.data() + src_row * C;
      double* out = re.data() + static_cast<std::size_t>(i) * C;
      for (std::size_t j = 0; j < C; ++j) out[j] = in[o[j]];
    }
    values.swap(re);
    res.order = o;
    if (!rows_are_ranks) {
      // The diagonal cell of a row/column slice moves with its rank.
      res.diag_col = static_cast<int>(std::find(o.begin(), o.end(), spec.rank) - o.begin());
    }
  }
  name_axis_hosts(res, *data_);
  res.levels = levels_from(r, spec.log, symmetric);
  if (src == Source::ratio) res.levels = ratio_levels(r);
  if (spec.white) res.levels.white = *spec.white;
  if (spec.black) res.levels.black = *spec.black;
  res.cells = cells_image(values, res.rows, res.cols, res.levels);
  res.values = std::make_shared<const std::vector<double>>(std::move(values));
  return res;
}

ViewResult Document::render_streamed(ViewResult res, Source src, const Progress& progress) {
  const ViewSpec& spec = res.spec;
  const int P = ranks();
  const std::size_t n = count();
  res.rows = res.cols = P;
  res.diag_col = ViewResult::kDiagIsRow;
  res.row_label = QStringLiteral("sender (from)");
  res.col_label = QStringLiteral("receiver (to)");
  // Levels first (a scan of the matrix, or of the file or window, by blocks of rows; cached per
  // matrix), then the grey levels block by block, reduced as they come.
  const Range r = spec.normalize == Normalize::matrix ? matrix_range(src, spec.k)
                  : spec.normalize == Normalize::file ? scan(src, 0, n, progress)
                                                      : scan(src, spec.k0, spec.k1, progress);
  res.levels = levels_from(r, spec.log, src == Source::difference);
  if (src == Source::ratio) res.levels = ratio_levels(r);
  if (spec.white) res.levels.white = *spec.white;
  if (spec.black) res.levels.black = *spec.black;
  std::vector<int> o;
  if (spec.order != Order::rank) {
    o = order_for(spec.order);
    res.order = o;
  }
  const int f = reduction_factor(P, P, spec.fit);
  const int side = (P + f - 1) / f;
  QImage out(side, side, QImage::Format_Grayscale8);
  auto mask = std::make_shared<CellMask>(side, side);
  BlockReducer red(P, f, spec.reduce);
  // Blocks of about a million cells, whole bands of f rows.
  const int step = std::max(1, (1 << 20) / P / f) * f;
  std::vector<std::uint8_t> grey(static_cast<std::size_t>(P)), nd(static_cast<std::size_t>(P));
  for (int i0 = 0; i0 < P; i0 += step) {
    if (progress.cancelled && progress.cancelled()) throw Cancelled{};
    const int i1 = std::min(P, i0 + step);
    const auto v = display_rows(src, spec.k, i0, i1, o);
    for (int i = i0; i < i1; ++i) {
      const double* row = v.data() + static_cast<std::size_t>(i - i0) * static_cast<std::size_t>(P);
      if (f == 1) {
        grey_row(row, P, res.levels, out.scanLine(i));
        for (int j = 0; j < P; ++j)
          if (std::isnan(row[j])) mask->set(j, i);
        continue;
      }
      grey_row(row, P, res.levels, grey.data());
      for (int j = 0; j < P; ++j) nd[static_cast<std::size_t>(j)] = std::isnan(row[j]);
      red.add_row(grey.data(), nd.data());
      if (red.rows_added() == f || i + 1 == P) red.take(out.scanLine(i / f), mask.get(), i / f);
    }
  }
  res.cells = std::move(out);
  res.pool = f;
  res.nodata = std::move(mask);
  res.probe = probe_for(src, spec.k, o);
  name_axis_hosts(res, *data_);
  return res;
}

}  // namespace nt::viewer

namespace nt::viewer {

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
  const auto* raw = dynamic_cast<const nt::RawReader*>(&d);
  const auto all = d.pair(s, r);
  std::vector<double> band;
  if (dev) band = dev->pair(s, r);
  const std::vector<int> counts = raw && raw->has_sample_count() ? raw->sample_count_of(s, r) : std::vector<int>{};
  for (std::size_t k = 0; k < d.count(); ++k) {
    if (d.lengths()[k] < lo || d.lengths()[k] > hi) continue;
    c.lengths.push_back(d.lengths()[k]);
    c.y.push_back(nt::is_good_delay(all[k]) ? all[k] : std::numeric_limits<double>::quiet_NaN());
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
      c.color = curve_color(curves.size());
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
  res.cells = plot_image(plot.curves, st, plot_w_, plot_h_, &res.geometry);
  res.rows = static_cast<int>(plot.curves.size());
  res.cols = 0;
  for (const auto& c : plot.curves) res.cols = std::max(res.cols, static_cast<int>(c.y.size()));
  res.values = std::make_shared<const std::vector<double>>(plot.curves.front().y);
  res.row_lengths = plot.curves.front().lengths;
  res.curves = std::move(plot.curves);
  return res;
}

}  // namespace nt::viewer
