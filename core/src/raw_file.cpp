#include "nt/raw_file.hpp"

#include "nt/output.hpp"

#include <fcntl.h>
#include <netcdf.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <sstream>

#include "nt/hosts.hpp"
#include "nt/result_set.hpp"
#include "nt/stats.hpp"
#include "nt/version.hpp"

namespace fs = std::filesystem;

namespace nt {
namespace {

int checked_int(std::int64_t v, const fs::path& p, const char* what) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw FileError(p, std::string(what) + " " + std::to_string(v) + " does not fit the file's 32-bit integers");
  return static_cast<int>(v);
}

}  // namespace

fs::path result_path(const fs::path& prefix, Statistic s) { return ResultSet(prefix).statistic(s); }

// ---------------------------------------------------------------------------------------------
// The one rule for a cut file, used by the reader and by --resume alike: libnetcdf reads bytes
// missing past the end of a cut file as zeros, so the file size decides. Only the last record may
// be incomplete (a job killed while writing it): it does not count.
static std::size_t complete_records(const fs::path& path, std::size_t n) {
  const auto layout = nc::classic_layout(path);
  if (!layout) return n;
  const std::uint64_t size = fs::file_size(path);
  if (size < layout->fixed_end)
    throw FileError(path, "truncated: " + std::to_string(size) + " bytes, its header needs " +
                              std::to_string(layout->fixed_end));
  const std::uint64_t whole = layout->complete_records(size);
  if (whole + 1 < layout->numrecs)
    throw FileError(path, "truncated: holds " + std::to_string(whole) + " complete records of the " +
                              std::to_string(layout->numrecs) + " its header lists");
  return std::min<std::size_t>(n, static_cast<std::size_t>(whole));
}

// ---------------------------------------------------------------------------------------------
// Writer

RawWriter::RawWriter(const fs::path& path, const FileInfo& info, bool overwrite, int samples, RecordExtras extras)
    : ranks_(info.params.proc_num), samples_(samples) {
  if (ranks_ <= 0) throw UsageError("cannot write " + path.string() + ": no ranks");
  check_output(path, overwrite);
  file_ = nc::File::create(path, nc::Kind::cdf2, overwrite);
  file_.set_fill(false);
  const int n = file_.def_dim("n", std::nullopt);
  const int x = file_.def_dim("x", static_cast<std::size_t>(ranks_));
  const int y = file_.def_dim("y", static_cast<std::size_t>(ranks_));
  std::vector<int> dims{n, x, y};
  if (samples_ > 0) dims.push_back(file_.def_dim("s", static_cast<std::size_t>(samples_)));
  FileInfo fi = info;
  if (samples_ > 0) fi.params.statistic = Statistic::all;
  write_file_info(file_, fi);
  length_var_ = file_.def_var("message_length", NC_INT, {n});
  file_.put_att(length_var_, "units", std::string("bytes"));
  file_.put_att(length_var_, "long_name", std::string("message length of each matrix"));
  data_var_ = file_.def_var("data", NC_DOUBLE, dims);
  file_.put_att(data_var_, "units", std::string("s"));
  file_.put_att(data_var_, "long_name",
                std::string(statistic_name(fi.params.statistic)) + " " + std::string(mode_name(fi.params.mode)) +
                    " delay from rank x to rank y");
  file_.put_att(data_var_, "coordinates", std::string("message_length"));
  if (extras.sample_count) {
    count_var_ = file_.def_var(kSampleCountVar, NC_INT, {n, x, y});
    file_.put_att(count_var_, "long_name", std::string("samples taken for the cell (--precision)"));
    file_.put_att(count_var_, "coordinates", std::string("message_length"));
  }
  if (extras.isolated && samples_ == 0) {
    isolated_var_ = file_.def_var(kIsolatedVar, NC_DOUBLE, {n, x, y});
    file_.put_att(isolated_var_, "units", std::string("s"));
    file_.put_att(isolated_var_, "long_name",
                  std::string(statistic_name(fi.params.statistic)) + " delay from rank x to rank y measured alone "
                  "(re-test after the concurrent rounds; NaN: not re-tested)");
    file_.put_att(isolated_var_, "coordinates", std::string("message_length"));
  }
  if (extras.sample_flags && samples_ > 0) {
    flags_var_ = file_.def_var(kSampleFlagsVar, NC_BYTE, dims);
    file_.put_att(flags_var_, "long_name", std::string("validity of each sample"));
    file_.put_att(flags_var_, "flag_masks", std::vector<int>{1, 2, 4});
    file_.put_att(flags_var_, "flag_meanings", std::string("started_late preempted not_taken"));
    file_.put_att(flags_var_, "coordinates", std::string("message_length"));
  }
  file_.enddef();
  file_.sync();
}

RawWriter RawWriter::resume(const fs::path& path, const FileInfo& expected, int samples, RecordExtras extras) {
  RawWriter w;
  w.file_ = nc::File::open(path, true);
  const FileInfo have = read_file_info(w.file_);
  TestParameters want = expected.params;
  if (samples > 0) want.statistic = Statistic::all;
  const TestParameters& h = have.params;
  auto differ = [&](const char* what, long long a, long long b) {
    if (a != b)
      throw UsageError("cannot resume " + path.string() + ": " + what + " is " + std::to_string(a) +
                       " in the file but " + std::to_string(b) + " now");
  };
  differ("proc_num", h.proc_num, want.proc_num);
  differ("test_type", static_cast<int>(h.mode), static_cast<int>(want.mode));
  differ("data_type", static_cast<int>(h.statistic), static_cast<int>(want.statistic));
  differ("begin_mes_length", h.begin_length, want.begin_length);
  differ("end_mes_length", h.end_length, want.end_length);
  differ("step_length", h.step_length, want.step_length);
  differ("noise_mes_length", h.noise_message_length, want.noise_message_length);
  differ("num_noise_mes", h.num_noise_messages, want.num_noise_messages);
  differ("num_noise_proc", h.num_noise_procs, want.num_noise_procs);
  differ("num_repeates", h.num_repeats, want.num_repeats);
  if (have.meta.sweep != expected.meta.sweep && !expected.meta.sweep.empty())
    throw UsageError("cannot resume " + path.string() + ": sweep is '" + have.meta.sweep + "' in the file but '" +
                     expected.meta.sweep + "' now");
  w.ranks_ = h.proc_num;
  w.samples_ = samples;
  w.data_var_ = w.file_.var("data").id;
  w.length_var_ = w.file_.var("message_length").id;
  auto extra = [&](bool wanted, const char* name, const char* option) {
    const auto v = w.file_.find_var(name);
    if (wanted && !v)
      throw UsageError("cannot resume " + path.string() + ": it was written without " + option);
    if (!wanted && v) throw UsageError("cannot resume " + path.string() + ": it was written with " + option);
    return v ? v->id : -1;
  };
  w.count_var_ = extra(extras.sample_count, kSampleCountVar, "--precision");
  if (samples > 0) w.flags_var_ = extra(extras.sample_flags, kSampleFlagsVar, "sample flags");
  if (samples == 0) w.isolated_var_ = extra(extras.isolated, kIsolatedVar, "--retest");
  // Continue after the last COMPLETE record, by the same rule as every reader: a record cut by
  // a kill is written again, never trusted because the header counts it.
  const std::size_t n_header = w.file_.dim("n").length;
  const std::size_t n_lengths = w.file_.dim_length(w.file_.var("message_length").dims.at(0));
  const std::size_t n = std::min(complete_records(path, n_header), n_lengths);
  std::vector<int> lens(n);
  if (n) w.file_.get(w.length_var_, {0}, {n}, lens.data());
  w.lengths_.assign(lens.begin(), lens.end());
  return w;
}

void RawWriter::append(std::int64_t message_length, std::span<const double> values, std::span<const int> counts,
                       std::span<const std::uint8_t> flags, std::span<const double> isolated) {
  const auto P = static_cast<std::size_t>(ranks_);
  const std::size_t expect = P * P * static_cast<std::size_t>(std::max(samples_, 1));
  if (values.size() != expect)
    throw Error("internal: record of " + std::to_string(values.size()) + " values, expected " +
                std::to_string(expect));
  const std::size_t k = lengths_.size();
  std::vector<std::size_t> start{k, 0, 0}, count{1, P, P};
  if (samples_ > 0) {
    start.push_back(0);
    count.push_back(static_cast<std::size_t>(samples_));
  }
  if ((count_var_ >= 0) != !counts.empty() || (!counts.empty() && counts.size() != P * P))
    throw Error("internal: sample counts do not match the file");
  if ((flags_var_ >= 0) != !flags.empty() || (!flags.empty() && flags.size() != expect))
    throw Error("internal: sample flags do not match the file");
  if ((isolated_var_ >= 0) != !isolated.empty() || (!isolated.empty() && isolated.size() != P * P))
    throw Error("internal: isolated values do not match the file");
  // Data first, then the length: a reader never sees a length without its matrix.
  file_.put(data_var_, start, count, values.data());
  if (count_var_ >= 0) file_.put(count_var_, {k, 0, 0}, {1, P, P}, counts.data());
  if (isolated_var_ >= 0) file_.put(isolated_var_, {k, 0, 0}, {1, P, P}, isolated.data());
  if (flags_var_ >= 0) {
    const std::vector<std::int8_t> f(flags.begin(), flags.end());
    file_.put(flags_var_, start, count, f.data());
  }
  const int len = checked_int(message_length, file_.path(), "message length");
  file_.put(length_var_, {k}, {1}, &len);
  file_.sync();
  lengths_.push_back(message_length);
}

// ---------------------------------------------------------------------------------------------
// Row writer: bytes at offsets of the classic format (big-endian values, records of recsize
// bytes from the first record variable's begin).

namespace {
void put_be64(unsigned char* o, std::uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) o[i] = static_cast<unsigned char>(v & 0xff);
}
void put_be32(unsigned char* o, std::uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) o[i] = static_cast<unsigned char>(v & 0xff);
}
}  // namespace

RawRowWriter::RawRowWriter(const fs::path& path, int P, int samples, RecordExtras extras)
    : path_(path), P_(static_cast<std::size_t>(P)), S_(static_cast<std::size_t>(samples)) {
  const auto layout = nc::classic_layout(path);
  if (!layout || nc::sniff(path) != nc::Magic::cdf2) {
    // A file that cannot be opened (too many open files: every simulated rank of one smpirun
    // process opens the result files) is not "not a CDF-2 file".
    errno = 0;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) std::fclose(f);
    else throw FileError(path, std::string("cannot open: ") + std::strerror(errno ? errno : EIO));
    throw FileError(path, "is not a CDF-2 file");
  }
  const std::uint64_t cells = std::uint64_t{P_} * P_, per_cell = std::max<std::uint64_t>(S_, 1);
  auto var = [&](const char* name, std::uint64_t bytes) {
    const auto* v = layout->find(name);
    if (!v || !v->record || v->vsize < bytes || v->vsize > ((bytes + 3) & ~std::uint64_t{3}))
      throw FileError(path, std::string("variable '") + name + "' is not laid out as this run writes it");
    return v;
  };
  data_ = var("data", cells * per_cell * 8)->begin;
  length_ = var("message_length", 4)->begin;
  has_count_ = extras.sample_count;
  has_flags_ = extras.sample_flags && S_ > 0;
  if (has_count_) count_ = var(kSampleCountVar, cells * 4)->begin;
  has_isolated_ = extras.isolated && S_ == 0;
  if (has_isolated_) isolated_ = var(kIsolatedVar, cells * 8)->begin;
  if (!has_isolated_ && layout->find(kIsolatedVar)) throw FileError(path, "has isolated values this run does not write");
  if (has_flags_) {
    const auto* f = var(kSampleFlagsVar, cells * S_);
    flags_ = f->begin;
    flags_vsize_ = f->vsize;
  }
  if (!has_count_ && layout->find(kSampleCountVar)) throw FileError(path, "has sample counts this run does not write");
  recsize_ = layout->record_size;
  numrecs_ = layout->numrecs;
  file_ = PosixFile::open_read_write(path);
  // Digest of the header (up to the first record): who opened the same file gets the same value.
  std::vector<unsigned char> head(static_cast<std::size_t>(std::min<std::uint64_t>(layout->records_begin, 1 << 20)));
  if (file_.read_some_at(head.data(), head.size(), 0) != head.size()) throw FileError(path, "cannot read its header");
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char b : head) h = (h ^ b) * 0x100000001b3ULL;
  digest_ = h;
}

void RawRowWriter::put_row(std::size_t k, int x, std::span<const double> values, std::span<const int> counts,
                           std::span<const std::uint8_t> flags, std::span<const double> isolated) {
  const std::size_t per_cell = std::max<std::size_t>(S_, 1), n = P_ * per_cell;
  if (values.size() != n || x < 0 || static_cast<std::size_t>(x) >= P_ || counts.size() != (has_count_ ? P_ : 0) ||
      flags.size() != (has_flags_ ? n : 0) || isolated.size() != (has_isolated_ ? P_ : 0))
    throw Error("internal: a row does not match " + path_.string());
  const std::uint64_t rec = k * recsize_, row = static_cast<std::uint64_t>(x);
  buf_.resize(n * 8);
  for (std::size_t i = 0; i < n; ++i) put_be64(buf_.data() + 8 * i, std::bit_cast<std::uint64_t>(values[i]));
  file_.write_at(buf_.data(), n * 8, data_ + rec + row * n * 8);
  if (has_count_) {
    buf_.resize(P_ * 4);
    for (std::size_t i = 0; i < P_; ++i) put_be32(buf_.data() + 4 * i, static_cast<std::uint32_t>(counts[i]));
    file_.write_at(buf_.data(), P_ * 4, count_ + rec + row * P_ * 4);
  }
  if (has_flags_) file_.write_at(flags.data(), n, flags_ + rec + row * n);
  if (has_isolated_) {
    buf_.resize(P_ * 8);
    for (std::size_t i = 0; i < P_; ++i) put_be64(buf_.data() + 8 * i, std::bit_cast<std::uint64_t>(isolated[i]));
    file_.write_at(buf_.data(), P_ * 8, isolated_ + rec + row * P_ * 8);
  }
}

void RawRowWriter::sync() { file_.sync(); }

void RawRowWriter::commit(std::size_t k, std::int64_t message_length) {
  const std::uint64_t rec = k * recsize_;
  if (has_flags_) {  // the padding of the byte variable, zeros as libnetcdf writes them
    const std::uint64_t used = P_ * P_ * S_;
    const std::vector<unsigned char> pad(static_cast<std::size_t>(flags_vsize_ - used), 0);
    if (!pad.empty()) file_.write_at(pad.data(), pad.size(), flags_ + rec + used);
  }
  unsigned char b[4];
  put_be32(b, static_cast<std::uint32_t>(checked_int(message_length, path_, "message length")));
  file_.write_at(b, 4, length_ + rec);
  sync();  // the record, then the header that counts it
  numrecs_ = std::max<std::uint64_t>(numrecs_, k + 1);
  put_be32(b, static_cast<std::uint32_t>(numrecs_));
  file_.write_at(b, 4, 4);
  sync();
}

// ---------------------------------------------------------------------------------------------
// Reader

// Optional record variables of a measurement: same leading dimensions as data, or ignored
// never: a variable of that name with another shape is a corrupt file, not missing data.
void RawReader::find_extra_vars(const fs::path& path, const std::vector<int>& data_dims) {
  if (const auto v = file_.find_var(kSampleCountVar)) {
    if (v->type != NC_INT || v->dims != std::vector<int>(data_dims.begin(), data_dims.begin() + 3))
      throw FileError(path, std::string("variable '") + kSampleCountVar + "' must be int sample_count(n, x, y)");
    count_var_ = v->id;
  }
  if (const auto v = file_.find_var(kIsolatedVar)) {
    if ((v->type != NC_DOUBLE && v->type != NC_FLOAT) ||
        v->dims != std::vector<int>(data_dims.begin(), data_dims.begin() + 3) || samples_ > 0)
      throw FileError(path, std::string("variable '") + kIsolatedVar +
                                "' must be double isolated(n, x, y) of a statistic file");
    isolated_var_ = v->id;
  }
  if (const auto v = file_.find_var(kSampleFlagsVar)) {
    if (v->type != NC_BYTE || v->dims != data_dims)
      throw FileError(path, std::string("variable '") + kSampleFlagsVar + "' must be byte with the dimensions of data");
    flags_var_ = v->id;
  }
}

// The message length of every complete record (message_length, or the sweep of a legacy file).
void RawReader::read_lengths(const fs::path& path, int n_dim, std::size_t n_complete) {
  if (auto lv = file_.find_var("message_length")) {
    if (lv->dims.size() != 1 || lv->dims[0] != n_dim)
      throw FileError(path, "variable 'message_length' must be message_length(n), one length per matrix");
    if (lv->type != NC_INT && lv->type != NC_INT64 && lv->type != NC_SHORT)
      throw FileError(path, "variable 'message_length' is not an integer variable");
    const std::size_t nl = file_.dim_length(lv->dims.at(0));
    // A job killed between the two writes of a record can leave one length more than matrices.
    const std::size_t count = std::min(n_complete, nl);
    // Read in blocks and check as we go: unwritten (fill) values in a corrupt NetCDF-4 file are
    // negative, so a file declaring 10^8 lengths is refused after the first block.
    constexpr std::size_t kBlock = 1 << 16;
    std::vector<int> lens;
    for (std::size_t k0 = 0; k0 < count; k0 += kBlock) {
      const std::size_t c = std::min(kBlock, count - k0);
      lens.resize(c);
      file_.get(lv->id, {k0}, {c}, lens.data());
      lengths_.insert(lengths_.end(), lens.begin(), lens.end());
      check_lengths(path, lengths_);
    }
  } else {
    if (info_.meta.format_version > 0) throw FileError(path, "variable 'message_length' is missing");
    for (std::size_t k = 0; k < n_complete; ++k)
      lengths_.push_back(static_cast<std::int64_t>(info_.params.begin_length) +
                         static_cast<std::int64_t>(k) * info_.params.step_length);
  }
}

RawReader::RawReader(const fs::path& path) {
  file_ = nc::File::open(path);
  source_ = path;
  info_ = read_file_info(file_);
  const auto data = file_.var("data");
  if (data.dims.size() != 3 && data.dims.size() != 4)
    throw FileError(path, "variable 'data' has " + std::to_string(data.dims.size()) +
                              " dimensions; expected data(n, x, y)");
  if (data.type != NC_DOUBLE && data.type != NC_FLOAT)
    throw FileError(path, "variable 'data' is not floating point");
  data_var_ = data.id;
  const std::size_t n = file_.dim_length(data.dims[0]);
  const std::size_t nx = file_.dim_length(data.dims[1]);
  const std::size_t ny = file_.dim_length(data.dims[2]);
  const auto P = static_cast<std::size_t>(info_.params.proc_num);
  if (nx != P || ny != P)
    throw FileError(path, "data is " + std::to_string(nx) + " x " + std::to_string(ny) + " but proc_num is " +
                              std::to_string(P));
  check_declared_size(path, static_cast<long long>(P), static_cast<long long>(n));
  if (data.dims.size() == 4) {
    const std::size_t S = file_.dim_length(data.dims[3]);
    if (S < 1 || S > (1u << 20)) throw FileError(path, "data declares " + std::to_string(S) + " samples per cell");
    samples_ = static_cast<int>(S);
  }
  find_extra_vars(path, data.dims);
  const bool nc4 = file_.kind() == nc::Kind::netcdf4 || file_.kind() == nc::Kind::netcdf4_classic;
  if (nc4) {
    check_compressed_size(path, 8.0L * static_cast<long double>(P) * static_cast<long double>(P) *
                                    static_cast<long double>(n) * std::max(samples_, 1));
    fill_is_missing_ = true;
  }
  const std::size_t n_complete = complete_records(path, n);
  read_lengths(path, data.dims[0], n_complete);
  check_lengths(path, lengths_);
  format_ = legacy() ? "legacy" : (file_.kind() == nc::Kind::netcdf4 ? "netcdf4" : "raw");
  transposed_ = legacy() && legacy_is_transposed(info_.params.mode);
  if (info_.meta.hosts.empty())
    if (auto h = ResultSet::of(path).find_hosts()) {
      auto hosts = read_hosts(*h);
      if (hosts.size() == P) info_.meta.hosts = std::move(hosts);
    }
}

void RawReader::read_slab(std::size_t n0, std::size_t nn, std::size_t x0, std::size_t nx, std::size_t y0,
                          std::size_t ny, double* out) const {
  // Unwritten parts of a NetCDF-4 file read as the fill value: missing data, never a delay.
  auto missing = [this](double* v, std::size_t count) {
    if (!fill_is_missing_) return;
    for (std::size_t i = 0; i < count; ++i)
      if (v[i] == NC_FILL_DOUBLE || v[i] == static_cast<double>(NC_FILL_FLOAT)) v[i] = std::nan("");
  };
  if (samples_ == 0) {
    file_.get(data_var_, {n0, x0, y0}, {nn, nx, ny}, out);
    missing(out, nn * nx * ny);
    return;
  }
  // _all files: the median over the samples of each cell.
  const auto S = static_cast<std::size_t>(samples_);
  std::vector<double> buf(nn * nx * ny * S);
  file_.get(data_var_, {n0, x0, y0, 0}, {nn, nx, ny, S}, buf.data());
  missing(buf.data(), buf.size());
  // Samples not taken (--precision stopped earlier) are NaN: the median is of those taken.
  std::vector<double> taken;
  for (std::size_t c = 0; c < nn * nx * ny; ++c) {
    taken.clear();
    for (std::size_t q = 0; q < S; ++q)
      if (!std::isnan(buf[c * S + q])) taken.push_back(buf[c * S + q]);
    out[c] = taken.empty() ? std::nan("") : median(std::span<const double>(taken));
  }
}

std::optional<Matrix> RawReader::isolated(std::size_t k) const {
  if (isolated_var_ < 0) return std::nullopt;
  check_index(k);
  const auto P = static_cast<std::size_t>(ranks());
  std::vector<double> v(P * P);
  file_.get(isolated_var_, {k, 0, 0}, {1, P, P}, v.data());
  Matrix m(ranks());
  std::copy(v.begin(), v.end(), m.values().begin());
  return m;
}

std::vector<int> RawReader::sample_count(std::size_t k) const {
  if (count_var_ < 0) return {};
  check_index(k);
  const auto P = static_cast<std::size_t>(ranks());
  std::vector<int> v(P * P);
  file_.get(count_var_, {k, 0, 0}, {1, P, P}, v.data());
  return v;
}

std::vector<int> RawReader::sample_count_of(int sender, int receiver) const {
  if (count_var_ < 0 || count() == 0) return {};
  check_pair(sender, receiver);
  std::vector<int> v(count());
  file_.get(count_var_, {0, static_cast<std::size_t>(sender), static_cast<std::size_t>(receiver)}, {count(), 1, 1},
            v.data());
  return v;
}

std::vector<std::uint8_t> RawReader::sample_flags(std::size_t k) const {
  if (flags_var_ < 0) return {};
  check_index(k);
  const auto P = static_cast<std::size_t>(ranks());
  const auto S = static_cast<std::size_t>(samples_);
  std::vector<std::int8_t> v(P * P * S);
  file_.get(flags_var_, {k, 0, 0, 0}, {1, P, P, S}, v.data());
  return std::vector<std::uint8_t>(v.begin(), v.end());
}

Matrix RawReader::matrix(std::size_t k) const {
  check_index(k);
  const auto P = static_cast<std::size_t>(ranks());
  Matrix m(ranks());
  read_slab(k, 1, 0, P, 0, P, m.data());
  if (transposed_) return m.transposed();
  return m;  // moved out (a conditional expression would copy it: two P x P matrices at the peak)
}

std::vector<double> RawReader::line(int rank, bool as_sender, std::size_t k0, std::size_t k1) const {
  check_rank(rank);
  check_window(k0, k1);
  const auto P = static_cast<std::size_t>(ranks());
  const auto i = static_cast<std::size_t>(rank);
  std::vector<double> out((k1 - k0) * P);
  if (out.empty()) return out;
  if (as_sender != transposed_)  // the rank is the file's x (a sender, or a legacy file's receiver)
    read_slab(k0, k1 - k0, i, 1, 0, P, out.data());
  else
    read_slab(k0, k1 - k0, 0, P, i, 1, out.data());
  return out;
}

std::vector<double> RawReader::row(int sender, std::size_t k0, std::size_t k1) const {
  return line(sender, true, k0, k1);
}

std::vector<double> RawReader::column(int receiver, std::size_t k0, std::size_t k1) const {
  return line(receiver, false, k0, k1);
}

std::vector<double> RawReader::pair(int sender, int receiver) const {
  check_pair(sender, receiver);
  std::vector<double> out(count());
  if (out.empty()) return out;
  auto x = static_cast<std::size_t>(sender), y = static_cast<std::size_t>(receiver);
  if (transposed_) std::swap(x, y);
  read_slab(0, count(), x, 1, y, 1, out.data());
  return out;
}

double RawReader::value(int sender, int receiver, std::size_t k) const {
  check_pair(sender, receiver);
  check_index(k);
  auto x = static_cast<std::size_t>(sender), y = static_cast<std::size_t>(receiver);
  if (transposed_) std::swap(x, y);
  double v = 0;
  read_slab(k, 1, x, 1, y, 1, &v);
  return v;
}

void RawReader::block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const {
  if (!check_block(k, x0, nx, y0, ny)) return;
  const auto X0 = static_cast<std::size_t>(x0), NX = static_cast<std::size_t>(nx);
  const auto Y0 = static_cast<std::size_t>(y0), NY = static_cast<std::size_t>(ny);
  if (!transposed_) {
    read_slab(k, 1, X0, NX, Y0, NY, out);
    return;
  }
  std::vector<double> t(NX * NY);  // the file's rows are our receivers
  read_slab(k, 1, Y0, NY, X0, NX, t.data());
  for (std::size_t y = 0; y < NY; ++y)
    for (std::size_t x = 0; x < NX; ++x) out[x * NY + y] = t[y * NX + x];
}

std::vector<double> RawReader::samples_of(int sender, int receiver, std::size_t k) const {
  if (samples_ == 0) throw Error(source_.string() + " holds statistics, not every sample");
  check_pair(sender, receiver);
  check_index(k);
  std::vector<double> out(static_cast<std::size_t>(samples_));
  file_.get(data_var_, {k, static_cast<std::size_t>(sender), static_cast<std::size_t>(receiver), 0},
            {1, 1, 1, out.size()}, out.data());
  return out;
}

static void write_raw_exactly(const fs::path& path, const Dataset& d) {
  FileInfo info = d.info();
  if (info.meta.format_version == 0) info.meta.format_version = kFormatVersion;  // upgraded on write
  RawWriter w(path, info, /*overwrite=*/true);
  for (std::size_t k = 0; k < d.count(); ++k) w.append(d.lengths()[k], d.matrix(k));
  w.close();
}

void write_raw(PendingOutput& out, const Dataset& d) { write_raw_exactly(out.temp(), d); }

void write_raw(const fs::path& path, const Dataset& d, bool overwrite) {
  PendingOutput out(path, overwrite);
  write_raw_exactly(out.temp(), d);
  out.commit();
}

}  // namespace nt
