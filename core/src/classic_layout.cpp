// What a file is from its first bytes (sniff), and the layout of a classic NetCDF file read from
// its header without libnetcdf (the row writer and the cut-file rule need byte offsets).
#include "nt/netcdf.hpp"

#include "nt/output.hpp"

#include <array>
#include <cstring>
#include <fstream>

namespace fs = std::filesystem;

namespace nt::nc {

Magic sniff(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 8> b{};
  if (!in.read(b.data(), b.size())) {
    // Files shorter than 8 bytes can still carry a CDF magic of 4 bytes.
    if (in.gcount() < 4) return Magic::none;
  }
  if (b[0] == 'C' && b[1] == 'D' && b[2] == 'F') {
    if (b[3] == 1) return Magic::cdf1;
    if (b[3] == 2) return Magic::cdf2;
    if (b[3] == 5) return Magic::cdf5;
  }
  static constexpr std::array<unsigned char, 8> hdf5{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (std::memcmp(b.data(), hdf5.data(), 8) == 0) return Magic::hdf5;
  return Magic::none;
}

// ---------------------------------------------------------------------------------------------
// Classic header walk (NetCDF classic format specification, CDF-1 and CDF-2).

namespace {

class HeaderReader {
 public:
  HeaderReader(const fs::path& path, bool cdf2) : in_(path, std::ios::binary), path_(path), cdf2_(cdf2) {
    std::error_code ec;
    size_ = fs::file_size(path, ec);
    if (ec) fail();
  }
  std::uint64_t file_size() const noexcept { return size_; }
  std::uint64_t position() { return static_cast<std::uint64_t>(in_.tellg()); }
  std::uint32_t u32() {
    unsigned char b[4];
    if (!in_.read(reinterpret_cast<char*>(b), 4)) fail();
    return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
  }
  std::uint64_t offset() {
    if (!cdf2_) return u32();
    const std::uint64_t hi = u32();
    return (hi << 32) | u32();
  }
  // Every skip and every count is checked against the bytes the file has left, so that a
  // crafted header can neither make us (nor, after us, libnetcdf) allocate or loop for long.
  void skip(std::uint64_t n) {
    if (n > size_ || position() + n > size_) fail();
    in_.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    if (!in_) fail();
  }
  void skip_name() {
    const std::uint64_t n = count(1);
    if (n == 0 || n > 256) fail();  // NC_MAX_NAME
    skip(pad4(n));
  }
  std::string name() {
    const std::uint64_t n = count(1);
    if (n == 0 || n > 256) fail();
    std::string s(n, '\0');
    if (!in_.read(s.data(), static_cast<std::streamsize>(n))) fail();
    skip(pad4(n) - n);
    return s;
  }
  // A count of items that take at least `min_bytes` each in the rest of the header.
  std::uint64_t count(std::uint64_t min_bytes = 4) {
    const std::uint64_t n = u32();
    if (n * min_bytes > size_ - std::min(size_, position())) fail();
    return n;
  }
  static std::uint64_t pad4(std::uint64_t n) { return (n + 3) & ~std::uint64_t{3}; }
  [[noreturn]] void fail() const { throw FileError(path_, "corrupt or truncated NetCDF header"); }
  void skip_attributes() {
    const std::uint32_t tag = u32();
    const std::uint64_t n = count(12);
    if (tag == 0 && n == 0) return;
    if (tag != 0x0C) fail();
    for (std::uint64_t a = 0; a < n; ++a) {
      skip_name();
      const std::uint32_t type = u32();
      static const int sizes[] = {0, 1, 1, 2, 4, 4, 8};  // byte char short int float double
      if (type < 1 || type > 6) fail();
      const std::uint64_t nelems = count(static_cast<std::uint64_t>(sizes[type]));
      skip(pad4(nelems * static_cast<std::uint64_t>(sizes[type])));
    }
  }

 private:
  std::ifstream in_;
  fs::path path_;
  bool cdf2_;
  std::uint64_t size_ = 0;
};

}  // namespace

std::uint64_t ClassicLayout::complete_records(std::uint64_t file_size) const {
  if (record_size == 0 || numrecs == 0) return numrecs;
  if (file_size < records_begin) return 0;
  return std::min<std::uint64_t>(numrecs, (file_size - records_begin) / record_size);
}

const ClassicLayout::Var* ClassicLayout::find(const std::string& name) const {
  for (const auto& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

namespace {

// The dimensions of a classic header: their lengths into dim_len; returns the unlimited one's
// index (length 0), -1 when none.
int read_dimensions(HeaderReader& h, std::vector<std::uint64_t>& dim_len) {
  int unlimited = -1;
  const std::uint32_t tag = h.u32();
  const std::uint64_t n = h.count(12);
  if (tag == 0 && n == 0) return unlimited;
  if (tag != 0x0A) h.fail();
  for (std::uint64_t d = 0; d < n; ++d) {
    h.skip_name();
    const std::uint64_t len = h.u32();
    if (len == 0) {
      if (unlimited >= 0) h.fail();  // classic files have at most one unlimited dimension
      unlimited = static_cast<int>(d);
    }
    dim_len.push_back(len);
  }
  return unlimited;
}

// One variable of a classic header, its data checked against the file's size.
ClassicLayout::Var read_variable(HeaderReader& h, const fs::path& path, const std::vector<std::uint64_t>& dim_len,
                                 int unlimited, std::uint64_t numrecs) {
  std::string var_name = h.name();
  const std::uint64_t ndims = h.count();
  if (ndims > 1024) h.fail();  // NC_MAX_VAR_DIMS
  bool is_record = false;
  // Values of one record (or of the whole variable): product of the fixed dimensions.
  long double values = 1;
  for (std::uint64_t d = 0; d < ndims; ++d) {
    const std::uint32_t id = h.u32();
    if (id >= dim_len.size()) h.fail();
    if (static_cast<int>(id) == unlimited) {
      if (d != 0) h.fail();  // only the first dimension may be unlimited
      is_record = true;
    } else {
      values *= static_cast<long double>(dim_len[id]);
    }
  }
  h.skip_attributes();
  const std::uint32_t type = h.u32();
  static const int sizes[] = {0, 1, 1, 2, 4, 4, 8};
  if (type < 1 || type > 6) h.fail();
  const std::uint64_t vsize = h.u32();
  const std::uint64_t begin = h.offset();
  const long double bytes = values * sizes[type];
  // The data must lie after the header, and a fixed variable inside the file: a file cannot
  // hold more values than it has bytes (libnetcdf would read the missing ones as zeros).
  if (begin < h.position()) h.fail();
  if (!is_record && (begin > h.file_size() || bytes > static_cast<long double>(h.file_size() - begin)))
    throw FileError(path, "truncated or corrupt: a variable's data lies beyond the end of the file");
  // With no record written yet (a run killed or still at its first length), the file is the
  // header alone however large a record of P x P values will be.
  if (is_record && numrecs > 0 && bytes > static_cast<long double>(h.file_size()))
    throw FileError(path, "corrupt: one record of a variable is larger than the whole file");
  return {std::move(var_name), begin, vsize, is_record};
}

}  // namespace

std::optional<ClassicLayout> classic_layout(const fs::path& path) {
  const Magic m = sniff(path);
  if (m == Magic::cdf5)
    throw FileError(path, "is a CDF-5 (64-bit data) file; this suite reads CDF-1, CDF-2 and NetCDF-4 files "
                          "(convert it with nccopy -k nc7 or nccopy -k 64-bit offset)");
  if (m != Magic::cdf1 && m != Magic::cdf2) return std::nullopt;
  HeaderReader h(path, m == Magic::cdf2);
  ClassicLayout L;
  (void)h.u32();  // magic
  L.numrecs = h.u32();
  if (L.numrecs == 0xFFFFFFFFu) L.numrecs = 0;  // streaming: unknown
  std::vector<std::uint64_t> dim_len;
  const int unlimited = read_dimensions(h, dim_len);
  h.skip_attributes();
  const std::uint32_t tag = h.u32();
  const std::uint64_t nvars = h.count(24);
  if (tag == 0 && nvars == 0) return L;
  if (tag != 0x0B) h.fail();
  std::uint64_t first_record_begin = UINT64_MAX;
  std::uint64_t record_vars = 0, last_record_vsize = 0;
  for (std::uint64_t v = 0; v < nvars; ++v) {
    L.vars.push_back(read_variable(h, path, dim_len, unlimited, L.numrecs));
    const auto& var = L.vars.back();
    if (var.record) {
      first_record_begin = std::min(first_record_begin, var.begin);
      L.record_size += var.vsize;
      last_record_vsize = var.vsize;
      ++record_vars;
    } else {
      L.fixed_end = std::max(L.fixed_end, var.begin + var.vsize);
    }
  }
  if (record_vars > 0) {
    L.records_begin = first_record_begin;
    // A single record variable is not padded to 4 bytes (the spec's special case); the vsize
    // stored in the header is already the padded size otherwise.
    if (record_vars == 1) L.record_size = last_record_vsize;
  }
  return L;
}

}  // namespace nt::nc
