// Clustered files: the lazy random-access reader (open_clustered).
// Layout and lookup rule: nt/clustered_writer.hpp and share/doc/design.md §5.
#include "nt/clustered.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nt/clustered_writer.hpp"
#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"

namespace fs = std::filesystem;

namespace nt {

namespace {

constexpr std::size_t kInfoCacheBytes = 64u << 20;

class ClusteredReader final : public Dataset {
 public:
  explicit ClusteredReader(const fs::path& path);
  Matrix matrix(std::size_t k) const override;
  std::vector<double> row(int sender, std::size_t k0, std::size_t k1) const override;
  std::vector<double> column(int receiver, std::size_t k0, std::size_t k1) const override;
  std::vector<double> rows(std::size_t k, int r0, int r1) const override;
  std::vector<double> pair(int sender, int receiver) const override;
  double value(int sender, int receiver, std::size_t k) const override;
  // nt::for_each_info_block.
  void info_blocks(std::size_t r, const InfoBlockFn& f) const;

 private:
  std::size_t P() const { return static_cast<std::size_t>(ranks()); }
  // Whether a whole region's info (P x P offsets) may be cached: up to kInfoCacheBytes. Above
  // that (P > 4096) nothing reads a whole region: matrices and blocks read the info rows they
  // need, so a 20,000-rank file is never expanded (design.md section 5).
  bool cacheable() const { return P() * P() * sizeof(int) <= kInfoCacheBytes; }
  // Rows [r0, r1) of matrix k into out ((r1-r0) x P values), reading their offsets only.
  void fill_rows(std::size_t k, std::size_t r0, std::size_t r1, double* out) const;
  std::size_t region_of(std::size_t k) const {
    return static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), k) - starts_.begin()) - 1;
  }
  std::size_t region_end(std::size_t r) const { return r + 1 < starts_.size() ? starts_[r + 1] : count(); }
  // The region's info matrix from the cache, loading it when `load`; nullptr otherwise.
  const std::vector<int>* region_info(std::size_t r, bool load) const;
  int info_one(std::size_t r, int x, int y) const;
  std::vector<int> info_row(std::size_t r, int x) const;
  std::vector<int> info_column(std::size_t r, int y) const;
  void check_offset(std::size_t r, int off) const;
  // Every offset of region r points into the data: checked once per region, a block of rows at a
  // time, before a P x P matrix is allocated for it.
  void check_region(std::size_t r) const;
  // Layout 2 residuals (all 0 when the file has none).
  int residual_one(int x, int y, std::size_t k) const;
  double fix(double c, int q) const { return apply_residual(c, q, res_step_, res_rel_); }
  // Applies the residuals of start/count (dimension order i, x, y) to `vals` (same order).
  void apply_block(std::vector<double>& vals, const std::vector<std::size_t>& start,
                   const std::vector<std::size_t>& count) const;
  // For elements with cluster offsets `offs` in region r, the values of matrices
  // [start_r + rel0, start_r + rel0 + cnt): out[e * cnt + t].
  std::vector<double> gather(std::size_t r, const std::vector<int>& offs, std::size_t rel0, std::size_t cnt) const;
  // Values of P pairs (one rank's row or column; offsets(r) gives their info entries in region
  // r) for matrices [k0, k1), laid out [(k-k0)*P + q].
  std::vector<double> slice(std::size_t k0, std::size_t k1,
                            const std::function<std::vector<int>(std::size_t)>& offsets) const;

  nc::File file_;
  int info_var_ = -1, data_var_ = -1;
  std::size_t d_ = 0;
  std::vector<std::size_t> starts_;
  int res_var_ = -1;
  double res_step_ = 0;
  bool res_rel_ = true;
  std::size_t tile_ = 1, tiles_ = 1;  // residual tile side and tiles per side
  mutable std::unordered_map<std::size_t, std::vector<std::int16_t>> res_tiles_;
  mutable std::size_t last_tile_ = static_cast<std::size_t>(-1);
  mutable const std::int16_t* last_tile_ptr_ = nullptr;
  // Small LRU cache of whole region info matrices (bounded in bytes).
  std::size_t cache_capacity_ = 1;
  mutable std::list<std::pair<std::size_t, std::vector<int>>> cache_;
  mutable std::unordered_map<std::size_t, unsigned> single_reads_;
  mutable std::vector<bool> region_checked_;
  // Blocks of data(d) aligned to its chunks: one read decompresses a chunk anyway.
  const double* data_block(std::size_t b) const;
  double data_at(std::size_t idx) const {
    const std::size_t b = idx / kBlock;
    if (b != last_block_) {
      last_ptr_ = data_block(b);
      last_block_ = b;
    }
    return last_ptr_[idx % kBlock];
  }
  static constexpr std::size_t kBlock = 8192;
  mutable std::unordered_map<std::size_t, std::vector<double>> blocks_;
  mutable std::size_t last_block_ = static_cast<std::size_t>(-1);
  mutable const double* last_ptr_ = nullptr;
};

ClusteredReader::ClusteredReader(const fs::path& path) : file_(nc::File::open(path)) {
  source_ = path;
  format_ = "clustered";
  info_ = read_file_info(file_);
  for (auto it = info_.meta.extra.begin(); it != info_.meta.extra.end();)
    it = it->first.starts_with(kClusterAttributePrefix) || it->first == "file_kind" ? info_.meta.extra.erase(it)
                                                                                    : std::next(it);
  const auto corrupt = [&](const std::string& what) { return FileError(path, "corrupt clustered file: " + what); };
  if (const auto v = file_.get_att_int(NC_GLOBAL, "cluster_layout_version"); v && *v > kClusteredLayoutVersion)
    throw FileError(path, "clustered layout version " + std::to_string(*v) + " is newer than this program reads (version " +
                              std::to_string(kClusteredLayoutVersion) + "); use a newer network_tests");
  const auto dim_len = [&](const char* name) {
    const auto d = file_.find_dim(name);
    if (!d) throw corrupt(std::string("dimension '") + name + "' is missing");
    return d->length;
  };
  const std::size_t nx = dim_len("x"), ni = dim_len("i"), nn = dim_len("n");
  d_ = dim_len("d");
  if (nx != P()) throw corrupt("dimension x = " + std::to_string(nx) + " but proc_num = " + std::to_string(P()));

  const auto var_with = [&](const char* name, int type, std::vector<std::size_t> lens) {
    const auto v = file_.find_var(name);
    if (!v) throw corrupt(std::string("variable '") + name + "' is missing");
    if (v->type != type) throw corrupt(std::string("variable '") + name + "' has the wrong type");
    if (v->dims.size() != lens.size()) throw corrupt(std::string("variable '") + name + "' has the wrong shape");
    for (std::size_t q = 0; q < lens.size(); ++q)
      if (file_.dim_length(v->dims[q]) != lens[q]) throw corrupt(std::string("variable '") + name + "' has the wrong shape");
    return v->id;
  };
  // Declared sizes before any allocation: a small corrupt file must not make us read gigabytes.
  check_declared_size(path, static_cast<long long>(P()), static_cast<long long>(ni));
  check_compressed_size(path, 4.0L * static_cast<long double>(nn) * static_cast<long double>(nx) *
                                    static_cast<long double>(nx) +
                                4.0L * static_cast<long double>(ni) + 8.0L * static_cast<long double>(d_));
  const int vml = var_with("message_length", NC_INT, {ni});
  const int vlen = var_with("length", NC_INT, {nn});
  info_var_ = var_with("info", NC_INT, {nn, nx, nx});
  data_var_ = var_with("data", NC_DOUBLE, {d_});

  std::vector<int> ml(ni), st(nn);
  if (ni) file_.get(vml, {0}, {ni}, ml.data());
  if (nn) file_.get(vlen, {0}, {nn}, st.data());
  lengths_.assign(ml.begin(), ml.end());
  check_lengths(path, lengths_);
  if ((ni == 0) != (nn == 0)) throw corrupt("regions do not cover the matrices");
  for (std::size_t r = 0; r < nn; ++r) {
    if (st[r] < 0 || static_cast<std::size_t>(st[r]) >= ni || (r == 0 && st[r] != 0) || (r > 0 && st[r] <= st[r - 1]))
      throw corrupt("region starts (variable 'length') are not increasing indices from 0 below " + std::to_string(ni));
    starts_.push_back(static_cast<std::size_t>(st[r]));
  }
  cache_capacity_ = std::max<std::size_t>(1, kInfoCacheBytes / (P() * P() * sizeof(int)));
  if (file_.find_var("residual")) {
    const auto rv = file_.find_var("residual");
    res_var_ = var_with("residual", rv->type == NC_BYTE ? NC_BYTE : NC_SHORT, {ni, nx, nx});
    const auto step = file_.get_att_double(res_var_, "residual_step");
    const auto mode = file_.get_att_text(res_var_, "residual_mode");
    if (!step || !(*step > 0) || !std::isfinite(*step)) throw corrupt("variable 'residual' has no positive residual_step");
    if (!mode || (*mode != "relative" && *mode != "absolute"))
      throw corrupt("variable 'residual' has no residual_mode 'relative' or 'absolute'");
    res_step_ = *step;
    res_rel_ = *mode == "relative";
    tile_ = std::min<std::size_t>(P(), kResidualTile);
    tiles_ = (P() + tile_ - 1) / tile_;
  }
}

int ClusteredReader::residual_one(int x, int y, std::size_t k) const {
  if (res_var_ < 0) return 0;
  const auto xs = static_cast<std::size_t>(x), ys = static_cast<std::size_t>(y);
  const std::size_t tx = xs / tile_, ty = ys / tile_;
  const std::size_t key = (k * tiles_ + tx) * tiles_ + ty;
  const std::size_t h = std::min(tile_, P() - tx * tile_), w = std::min(tile_, P() - ty * tile_);
  if (key != last_tile_) {
    auto it = res_tiles_.find(key);
    if (it == res_tiles_.end()) {
      if (res_tiles_.size() >= 256) res_tiles_.clear();  // at most 8 MiB of tiles
      std::vector<std::int16_t> t(h * w);
      file_.get(res_var_, {k, tx * tile_, ty * tile_}, {1, h, w}, t.data());
      it = res_tiles_.emplace(key, std::move(t)).first;
    }
    last_tile_ = key;
    last_tile_ptr_ = it->second.data();
  }
  return last_tile_ptr_[(xs - tx * tile_) * w + (ys - ty * tile_)];
}

void ClusteredReader::apply_block(std::vector<double>& vals, const std::vector<std::size_t>& start,
                                  const std::vector<std::size_t>& count) const {
  if (res_var_ < 0) return;
  std::vector<std::int16_t> q(vals.size());
  file_.get(res_var_, start, count, q.data());
  for (std::size_t e = 0; e < vals.size(); ++e) vals[e] = fix(vals[e], q[e]);
}

const std::vector<int>* ClusteredReader::region_info(std::size_t r, bool load) const {
  for (auto it = cache_.begin(); it != cache_.end(); ++it)
    if (it->first == r) {
      cache_.splice(cache_.begin(), cache_, it);
      return &cache_.front().second;
    }
  if (!load || !cacheable()) return nullptr;
  std::vector<int> v(P() * P());
  file_.get(info_var_, {r, 0, 0}, {1, P(), P()}, v.data());
  if (cache_.size() >= cache_capacity_) cache_.pop_back();
  cache_.emplace_front(r, std::move(v));
  return &cache_.front().second;
}

int ClusteredReader::info_one(std::size_t r, int x, int y) const {
  // Random access: a few single reads per region, then the region's info is worth caching.
  const bool load = cacheable() && ++single_reads_[r] > 8;
  if (const auto* c = region_info(r, load)) return (*c)[static_cast<std::size_t>(x) * P() + static_cast<std::size_t>(y)];
  int v = 0;
  file_.get(info_var_, {r, static_cast<std::size_t>(x), static_cast<std::size_t>(y)}, {1, 1, 1}, &v);
  return v;
}

std::vector<int> ClusteredReader::info_row(std::size_t r, int x) const {
  std::vector<int> v(P());
  if (const auto* c = region_info(r, false)) {
    std::copy_n(c->begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(x) * P()), P(), v.begin());
  } else {
    file_.get(info_var_, {r, static_cast<std::size_t>(x), 0}, {1, 1, P()}, v.data());
  }
  return v;
}

std::vector<int> ClusteredReader::info_column(std::size_t r, int y) const {
  std::vector<int> v(P());
  if (const auto* c = region_info(r, true)) {
    for (std::size_t x = 0; x < P(); ++x) v[x] = (*c)[x * P() + static_cast<std::size_t>(y)];
  } else {
    file_.get(info_var_, {r, 0, static_cast<std::size_t>(y)}, {1, P(), 1}, v.data());
  }
  return v;
}

void ClusteredReader::check_offset(std::size_t r, int off) const {
  const std::size_t len = region_end(r) - starts_[r];
  if (off < 0 || static_cast<std::size_t>(off) + len > d_)
    throw FileError(source_, "corrupt clustered file: info offset " + std::to_string(off) + " in region " +
                                 std::to_string(r) + " points outside data (" + std::to_string(d_) + " values)");
}

void ClusteredReader::info_blocks(std::size_t r, const InfoBlockFn& f) const {
  if (r >= starts_.size())
    throw Error(source_.string() + ": region " + std::to_string(r) + " of " + std::to_string(starts_.size()));
  const std::size_t step = std::max<std::size_t>(1, (std::size_t{1} << 20) / P());  // about 4 MiB of offsets
  std::vector<int> offs;
  for (std::size_t a = 0; a < P(); a += step) {
    const std::size_t b = std::min(P(), a + step);
    offs.resize((b - a) * P());
    file_.get(info_var_, {r, a, 0}, {1, b - a, P()}, offs.data());
    const auto [lo, hi] = std::minmax_element(offs.begin(), offs.end());
    check_offset(r, *lo);
    check_offset(r, *hi);
    if (f) f(a, b - a, offs.data());
  }
}

void ClusteredReader::check_region(std::size_t r) const {
  if (region_checked_.empty()) region_checked_.assign(starts_.size(), false);
  if (region_checked_[r]) return;
  info_blocks(r, {});
  region_checked_[r] = true;
}

const double* ClusteredReader::data_block(std::size_t b) const {
  const auto it = blocks_.find(b);
  if (it != blocks_.end()) return it->second.data();
  if (blocks_.size() >= 512) {  // at most 32 MiB of data blocks
    blocks_.clear();
    last_block_ = static_cast<std::size_t>(-1);
  }
  const std::size_t lo = b * kBlock, n = std::min(kBlock, d_ - lo);
  std::vector<double> v(kBlock);
  file_.get(data_var_, {lo}, {n}, v.data());
  return blocks_.emplace(b, std::move(v)).first->second.data();
}

std::vector<double> ClusteredReader::gather(std::size_t r, const std::vector<int>& offs, std::size_t rel0,
                                            std::size_t cnt) const {
  std::vector<double> out(offs.size() * cnt);
  int last = -1;
  for (std::size_t e = 0; e < offs.size(); ++e) {
    const int o = offs[e];
    if (e > 0 && o == last) {  // runs of equal offsets are the rule in info
      std::copy_n(out.begin() + static_cast<std::ptrdiff_t>((e - 1) * cnt), cnt, out.begin() + static_cast<std::ptrdiff_t>(e * cnt));
      continue;
    }
    check_offset(r, o);
    last = o;
    for (std::size_t t = 0; t < cnt; ++t) out[e * cnt + t] = data_at(static_cast<std::size_t>(o) + rel0 + t);
  }
  return out;
}

Matrix ClusteredReader::matrix(std::size_t k) const {
  check_index(k);
  const std::size_t r = region_of(k);
  if (const auto* info = region_info(r, true)) {
    auto vals = gather(r, *info, k - starts_[r], 1);
    apply_block(vals, {k, 0, 0}, {1, P(), P()});
    return Matrix(ranks(), std::move(vals));
  }
  // Large P: the offsets are read a block at a time below; check them all before P x P doubles
  // are committed to (a 5 MB file may declare 20,000 ranks: 3.2 GB), and that they fit.
  check_region(r);
  require_memory(static_cast<std::uint64_t>(P()) * P() * sizeof(double),
                 "a " + std::to_string(P()) + " x " + std::to_string(P()) + " matrix of " + source_.string());
  Matrix m(ranks());
  fill_rows(k, 0, P(), m.data());
  return m;
}

void ClusteredReader::fill_rows(std::size_t k, std::size_t r0, std::size_t r1, double* out) const {
  const std::size_t r = region_of(k);
  const std::size_t rel = k - starts_[r];
  const auto* cached = region_info(r, false);
  // Blocks of about a million cells (4 MiB of offsets), whole residual tiles high so that each
  // tile is decompressed once.
  std::size_t step = std::max<std::size_t>(1, (std::size_t{1} << 20) / P());
  if (res_var_ >= 0) step = (step + tile_ - 1) / tile_ * tile_;
  std::vector<int> offs;
  for (std::size_t a = r0; a < r1; a += step) {
    const std::size_t b = std::min(r1, a + step), n = (b - a) * P();
    if (cached) {
      offs.assign(cached->begin() + static_cast<std::ptrdiff_t>(a * P()), cached->begin() + static_cast<std::ptrdiff_t>(b * P()));
    } else {
      offs.resize(n);
      file_.get(info_var_, {r, a, 0}, {1, b - a, P()}, offs.data());
    }
    auto vals = gather(r, offs, rel, 1);
    apply_block(vals, {k, a, 0}, {1, b - a, P()});
    std::copy(vals.begin(), vals.end(), out + (a - r0) * P());
  }
}

std::vector<double> ClusteredReader::rows(std::size_t k, int r0, int r1) const {
  check_rows(k, r0, r1);
  std::vector<double> out(static_cast<std::size_t>(r1 - r0) * P());
  fill_rows(k, static_cast<std::size_t>(r0), static_cast<std::size_t>(r1), out.data());
  return out;
}

std::vector<double> ClusteredReader::slice(std::size_t k0, std::size_t k1,
                                           const std::function<std::vector<int>(std::size_t)>& offsets) const {
  check_window(k0, k1);
  std::vector<double> out((k1 - k0) * P());
  for (std::size_t k = k0; k < k1;) {
    const std::size_t r = region_of(k);
    const std::size_t e = std::min(k1, region_end(r));
    const std::size_t cnt = e - k;
    const auto vals = gather(r, offsets(r), k - starts_[r], cnt);
    for (std::size_t q = 0; q < P(); ++q)
      for (std::size_t t = 0; t < cnt; ++t) out[(k - k0 + t) * P() + q] = vals[q * cnt + t];
    k = e;
  }
  return out;
}

std::vector<double> ClusteredReader::row(int sender, std::size_t k0, std::size_t k1) const {
  check_rank(sender);
  auto out = slice(k0, k1, [&](std::size_t r) { return info_row(r, sender); });
  if (k1 > k0) apply_block(out, {k0, static_cast<std::size_t>(sender), 0}, {k1 - k0, 1, P()});
  return out;
}

std::vector<double> ClusteredReader::column(int receiver, std::size_t k0, std::size_t k1) const {
  check_rank(receiver);
  auto out = slice(k0, k1, [&](std::size_t r) { return info_column(r, receiver); });
  if (k1 > k0) apply_block(out, {k0, 0, static_cast<std::size_t>(receiver)}, {k1 - k0, P(), 1});
  return out;
}

std::vector<double> ClusteredReader::pair(int sender, int receiver) const {
  check_pair(sender, receiver);
  std::vector<double> out;
  out.reserve(count());
  for (std::size_t r = 0; r < starts_.size(); ++r) {
    const auto vals = gather(r, {info_one(r, sender, receiver)}, 0, region_end(r) - starts_[r]);
    out.insert(out.end(), vals.begin(), vals.end());
  }
  if (count()) apply_block(out, {0, static_cast<std::size_t>(sender), static_cast<std::size_t>(receiver)}, {count(), 1, 1});
  return out;
}

double ClusteredReader::value(int sender, int receiver, std::size_t k) const {
  check_pair(sender, receiver);
  check_index(k);
  const std::size_t r = region_of(k);
  const int off = info_one(r, sender, receiver);
  check_offset(r, off);
  return fix(data_at(static_cast<std::size_t>(off) + (k - starts_[r])), residual_one(sender, receiver, k));
}

}  // namespace

std::unique_ptr<Dataset> open_clustered(const fs::path& path) { return std::make_unique<ClusteredReader>(path); }

void for_each_info_block(const Dataset& clustered, std::size_t region, const InfoBlockFn& f) {
  const auto* c = dynamic_cast<const ClusteredReader*>(&clustered);
  if (!c) throw Error(clustered.source().string() + " is not a clustered file");
  c->info_blocks(region, f);
}

}  // namespace nt
