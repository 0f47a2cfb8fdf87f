#include "nt/netcdf.hpp"

#include "nt/output.hpp"

#include <netcdf.h>
#include <sys/statvfs.h>

#include <cerrno>

#include <array>
#include <atomic>
#include <concepts>
#include <cstring>
#include <fstream>
#include <utility>

namespace fs = std::filesystem;

namespace nt::nc {

std::recursive_mutex& library_mutex() {
  static std::recursive_mutex m;
  return m;
}

namespace {
using Lock = std::lock_guard<std::recursive_mutex>;
}

void check(int status, const fs::path& file, const std::string& op) {
  if (status == NC_NOERR) return;
  const int err = errno;
  std::string cause = nc_strerror(status);
  // libnetcdf and HDF5 often report a full disk or a read-only filesystem as "HDF error" or
  // "Permission denied"; name the real cause where the system says it.
  if (err == ENOSPC || err == EDQUOT || err == EROFS || err == EFBIG) {
    cause = std::strerror(err);
  } else if (status == NC_EHDFERR || status > 0) {
    struct statvfs vfs {};
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (::statvfs(dir.c_str(), &vfs) == 0) {
      if ((vfs.f_flag & ST_RDONLY) != 0)
        cause = std::strerror(EROFS);
      else if (static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize < (64u << 10))
        cause = std::strerror(ENOSPC) + std::string(" (") + nc_strerror(status) + ")";
    }
  }
  throw Error(output_name(file), op + ": " + cause, status);
}

void File::check(int status, const std::string& op) const { nc::check(status, path_, op); }

namespace {
std::atomic<bool> g_close_failed{false};
// A failed nc_close of a NetCDF-4 file (e.g. a full disk) leaves HDF5 holding a half-closed
// file that its exit handler then crashes on; the programs skip that handler (library_damaged).
int close_id(int id) {
  const int st = nc_close(id);
  if (st != NC_NOERR) g_close_failed = true;
  return st;
}
}  // namespace

bool library_damaged() noexcept { return g_close_failed.load(); }

File::~File() {
  if (id_ >= 0) {
    Lock lock(library_mutex());
    close_id(id_);
  }
}

File::File(File&& o) noexcept : id_(std::exchange(o.id_, -1)), path_(std::move(o.path_)) {}

File& File::operator=(File&& o) noexcept {
  if (this != &o) {
    if (id_ >= 0) {
      Lock lock(library_mutex());
      close_id(id_);
    }
    id_ = std::exchange(o.id_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

File File::open(const fs::path& path, bool write) {
  Lock lock(library_mutex());
  std::error_code ec;
  if (!fs::exists(path, ec)) throw FileError(path, "no such file");
  if (fs::is_directory(path, ec)) throw FileError(path, "is a directory, not a file");
  // Our own walk of a classic header first: libnetcdf trusts the header and can spend minutes
  // and gigabytes on a few corrupt bytes.
  (void)classic_layout(path);
  int id = -1;
  const int st = nc_open(path.c_str(), write ? NC_WRITE : NC_NOWRITE, &id);
  if (st != NC_NOERR) {
    if (st == NC_ENOTNC || st == NC_EHDFERR || st == NC_ENOTBUILT)
      throw Error(path, std::string("not a readable NetCDF file (") + nc_strerror(st) + ")", st);
    nc::check(st, path, "open");
  }
  return File(id, path);
}

File File::create(const fs::path& path, Kind kind, bool overwrite) {
  Lock lock(library_mutex());
  std::error_code ec;
  if (!overwrite && fs::exists(path, ec)) throw FileError(path, "exists already; use --force to overwrite it");
  int mode = overwrite ? NC_CLOBBER : NC_NOCLOBBER;
  switch (kind) {
    case Kind::classic: break;
    case Kind::cdf2: mode |= NC_64BIT_OFFSET; break;
    case Kind::cdf5: mode |= NC_64BIT_DATA; break;
    case Kind::netcdf4: mode |= NC_NETCDF4; break;
    case Kind::netcdf4_classic: mode |= NC_NETCDF4 | NC_CLASSIC_MODEL; break;
  }
  int id = -1;
  nc::check(nc_create(path.c_str(), mode, &id), path, "create");
  return File(id, path);
}

Kind File::kind() const {
  Lock lock(library_mutex());
  int fmt = 0;
  check(nc_inq_format(id_, &fmt), "inquire format");
  switch (fmt) {
    case NC_FORMAT_64BIT_OFFSET: return Kind::cdf2;
    case NC_FORMAT_64BIT_DATA: return Kind::cdf5;
    case NC_FORMAT_NETCDF4: return Kind::netcdf4;
    case NC_FORMAT_NETCDF4_CLASSIC: return Kind::netcdf4_classic;
    default: return Kind::classic;
  }
}

void File::close() {
  if (id_ < 0) return;
  Lock lock(library_mutex());
  const int id = std::exchange(id_, -1);
  check(close_id(id), "close");
}

void File::sync() {
  Lock lock(library_mutex());
  check(nc_sync(id_), "sync");
}

void File::redef() {
  Lock lock(library_mutex());
  check(nc_redef(id_), "enter define mode");
}

void File::enddef() {
  Lock lock(library_mutex());
  check(nc_enddef(id_), "leave define mode");
}

void File::set_fill(bool fill) {
  Lock lock(library_mutex());
  int old = 0;
  check(nc_set_fill(id_, fill ? NC_FILL : NC_NOFILL, &old), "set fill mode");
}

int File::def_dim(const std::string& name, std::optional<std::size_t> length) {
  Lock lock(library_mutex());
  int id = -1;
  check(nc_def_dim(id_, name.c_str(), length ? *length : NC_UNLIMITED, &id), "define dimension " + name);
  return id;
}

std::optional<DimInfo> File::find_dim(const std::string& name) const {
  Lock lock(library_mutex());
  int id = -1;
  if (nc_inq_dimid(id_, name.c_str(), &id) != NC_NOERR) return std::nullopt;
  DimInfo d;
  d.id = id;
  d.name = name;
  check(nc_inq_dimlen(id_, id, &d.length), "inquire dimension " + name);
  int nunlim = 0;
  check(nc_inq_unlimdims(id_, &nunlim, nullptr), "inquire unlimited dimensions");
  if (nunlim > 0) {
    std::vector<int> ids(static_cast<std::size_t>(nunlim));
    check(nc_inq_unlimdims(id_, &nunlim, ids.data()), "inquire unlimited dimensions");
    for (int u : ids) d.unlimited = d.unlimited || u == id;
  }
  return d;
}

DimInfo File::dim(const std::string& name) const {
  auto d = find_dim(name);
  if (!d) throw FileError(path_, "dimension '" + name + "' is missing");
  return *d;
}

std::size_t File::dim_length(int dimid) const {
  Lock lock(library_mutex());
  std::size_t len = 0;
  check(nc_inq_dimlen(id_, dimid, &len), "inquire dimension length");
  return len;
}

int File::def_var(const std::string& name, int nc_type, const std::vector<int>& dimids) {
  Lock lock(library_mutex());
  int id = -1;
  check(nc_def_var(id_, name.c_str(), nc_type, static_cast<int>(dimids.size()),
                   dimids.empty() ? nullptr : dimids.data(), &id),
        "define variable " + name);
  return id;
}

void File::def_chunking(int varid, const std::vector<std::size_t>& chunks) {
  Lock lock(library_mutex());
  check(nc_def_var_chunking(id_, varid, NC_CHUNKED, chunks.data()), "define chunking");
}

void File::def_deflate(int varid, int level, bool shuffle) {
  Lock lock(library_mutex());
  check(nc_def_var_deflate(id_, varid, shuffle ? 1 : 0, 1, level), "define deflate");
}

std::optional<VarInfo> File::find_var(const std::string& name) const {
  Lock lock(library_mutex());
  int id = -1;
  if (nc_inq_varid(id_, name.c_str(), &id) != NC_NOERR) return std::nullopt;
  VarInfo v;
  v.id = id;
  v.name = name;
  int ndims = 0;
  nc_type type = 0;
  check(nc_inq_var(id_, id, nullptr, &type, &ndims, nullptr, nullptr), "inquire variable " + name);
  v.type = type;
  v.dims.resize(static_cast<std::size_t>(ndims));
  if (ndims > 0) check(nc_inq_vardimid(id_, id, v.dims.data()), "inquire variable dimensions " + name);
  return v;
}

VarInfo File::var(const std::string& name) const {
  auto v = find_var(name);
  if (!v) throw FileError(path_, "variable '" + name + "' is missing");
  return *v;
}

// libnetcdf reads start[] and count[] for as many dimensions as the variable has: shorter
// arrays (a file whose variable has more dimensions than its reader expects) would be read past
// their end. Checked on every access.
void File::check_shape(int varid, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count) const {
  int ndims = -1;
  check(nc_inq_varndims(id_, varid, &ndims), "inquire variable");
  if (start.size() != count.size() || static_cast<std::size_t>(ndims) != start.size()) {
    char name[NC_MAX_NAME + 1] = {};
    nc_inq_varname(id_, varid, name);
    throw FileError(path_, "variable '" + std::string(name) + "' has " + std::to_string(ndims) +
                               " dimensions; this reader expects " + std::to_string(start.size()));
  }
}

namespace {
// The libnetcdf calls that write / read memory of each element type (nt::nc::Element): one row per
// type, so a new element type is one specialisation here plus its instantiation below.
template <class T>
struct Vara;
template <>
struct Vara<double> {
  using C = double;
  static constexpr auto put = nc_put_vara_double;
  static constexpr auto get = nc_get_vara_double;
};
template <>
struct Vara<int> {
  using C = int;
  static constexpr auto put = nc_put_vara_int;
  static constexpr auto get = nc_get_vara_int;
};
template <>
struct Vara<std::int16_t> {
  using C = short;
  static constexpr auto put = nc_put_vara_short;
  static constexpr auto get = nc_get_vara_short;
};
template <>
struct Vara<std::int8_t> {
  using C = signed char;
  static constexpr auto put = nc_put_vara_schar;
  static constexpr auto get = nc_get_vara_schar;
};
}  // namespace

template <Element T>
void File::put(int varid, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
               const T* values) {
  Lock lock(library_mutex());
  check_shape(varid, start, count);
  using C = typename Vara<T>::C;
  check(Vara<T>::put(id_, varid, start.data(), count.data(), reinterpret_cast<const C*>(values)), "write data");
}

template <Element T>
void File::get(int varid, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
               T* values) const {
  Lock lock(library_mutex());
  check_shape(varid, start, count);
  using C = typename Vara<T>::C;
  check(Vara<T>::get(id_, varid, start.data(), count.data(), reinterpret_cast<C*>(values)), "read data");
}

// The element types (nt::nc::Element), instantiated here so that <netcdf.h> stays out of the header.
using Start = std::vector<std::size_t>;
template void File::put(int, const Start&, const Start&, const double*);
template void File::put(int, const Start&, const Start&, const int*);
template void File::put(int, const Start&, const Start&, const std::int16_t*);
template void File::put(int, const Start&, const Start&, const std::int8_t*);
template void File::get(int, const Start&, const Start&, double*) const;
template void File::get(int, const Start&, const Start&, int*) const;
template void File::get(int, const Start&, const Start&, std::int16_t*) const;
template void File::get(int, const Start&, const Start&, std::int8_t*) const;

std::optional<int> File::try_scalar_int(const std::string& name) const {
  Lock lock(library_mutex());
  int id = -1;
  if (nc_inq_varid(id_, name.c_str(), &id) != NC_NOERR) return std::nullopt;
  int ndims = 0;
  check(nc_inq_varndims(id_, id, &ndims), "inquire " + name);
  if (ndims != 0) throw FileError(path_, "variable '" + name + "' is not a scalar");
  int v = 0;
  check(nc_get_var_int(id_, id, &v), "read " + name);
  return v;
}

int File::get_scalar_int(const std::string& name) const {
  auto v = try_scalar_int(name);
  if (!v) throw FileError(path_, "variable '" + name + "' is missing");
  return *v;
}

void File::put_att(int varid, const std::string& name, const std::string& text) {
  Lock lock(library_mutex());
  check(nc_put_att_text(id_, varid, name.c_str(), text.size(), text.data()), "write attribute " + name);
}

void File::put_att(int varid, const std::string& name, double value) {
  Lock lock(library_mutex());
  check(nc_put_att_double(id_, varid, name.c_str(), NC_DOUBLE, 1, &value), "write attribute " + name);
}

void File::put_att(int varid, const std::string& name, int value) {
  Lock lock(library_mutex());
  check(nc_put_att_int(id_, varid, name.c_str(), NC_INT, 1, &value), "write attribute " + name);
}

void File::put_att(int varid, const std::string& name, const std::vector<int>& values) {
  Lock lock(library_mutex());
  check(nc_put_att_int(id_, varid, name.c_str(), NC_INT, values.size(), values.data()),
        "write attribute " + name);
}

std::optional<std::pair<int, std::size_t>> File::att_shape(int varid, const std::string& name) const {
  Lock lock(library_mutex());
  nc_type type = 0;
  std::size_t len = 0;
  if (nc_inq_att(id_, varid, name.c_str(), &type, &len) != NC_NOERR) return std::nullopt;
  return std::pair<int, std::size_t>{type, len};
}

std::optional<std::string> File::get_att_text(int varid, const std::string& name) const {
  Lock lock(library_mutex());
  nc_type type = 0;
  std::size_t len = 0;
  if (nc_inq_att(id_, varid, name.c_str(), &type, &len) != NC_NOERR) return std::nullopt;
  if (type != NC_CHAR) return std::nullopt;
  std::string s(len, '\0');
  if (len) check(nc_get_att_text(id_, varid, name.c_str(), s.data()), "read attribute " + name);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

namespace {

int get_att(int id, int varid, const char* name, double* v) { return nc_get_att_double(id, varid, name, v); }
int get_att(int id, int varid, const char* name, int* v) { return nc_get_att_int(id, varid, name, v); }

// The values of a numeric attribute, converted to T; nullopt when it is absent, text, or (with
// `one`) not a single value.
template <class T>
std::optional<std::vector<T>> numeric_att(int id, const fs::path& path, int varid, const std::string& name, bool one) {
  Lock lock(library_mutex());
  nc_type type = 0;
  std::size_t len = 0;
  if (nc_inq_att(id, varid, name.c_str(), &type, &len) != NC_NOERR || type == NC_CHAR || (one && len != 1))
    return std::nullopt;
  std::vector<T> v(len);
  if (len) check(get_att(id, varid, name.c_str(), v.data()), path, "read attribute " + name);
  return v;
}

}  // namespace

std::optional<double> File::get_att_double(int varid, const std::string& name) const {
  if (auto v = numeric_att<double>(id_, path_, varid, name, true)) return v->front();
  return std::nullopt;
}

std::optional<int> File::get_att_int(int varid, const std::string& name) const {
  if (auto v = numeric_att<int>(id_, path_, varid, name, true)) return v->front();
  return std::nullopt;
}

std::optional<std::vector<int>> File::get_att_ints(int varid, const std::string& name) const {
  return numeric_att<int>(id_, path_, varid, name, false);
}

std::vector<std::string> File::att_names(int varid) const {
  Lock lock(library_mutex());
  int natts = 0;
  if (varid == NC_GLOBAL)
    check(nc_inq_natts(id_, &natts), "count attributes");
  else
    check(nc_inq_varnatts(id_, varid, &natts), "count attributes");
  std::vector<std::string> out;
  for (int i = 0; i < natts; ++i) {
    std::array<char, NC_MAX_NAME + 1> name{};
    check(nc_inq_attname(id_, varid, i, name.data()), "inquire attribute name");
    out.emplace_back(name.data());
  }
  return out;
}

}  // namespace nt::nc
