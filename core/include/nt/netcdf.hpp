// The one checked wrapper over the NetCDF C API.
//
// Every call into libnetcdf in the project goes through here (HighFive style): failures become
// nt::nc::Error (a FileError) carrying nc_strerror's message, the operation and the file name;
// handles are RAII. All calls take one process-wide lock, because libnetcdf is not thread-safe.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nt/error.hpp"

namespace nt::nc {

class Error : public FileError {
 public:
  Error(const std::filesystem::path& file, const std::string& what, int status)
      : FileError(file, what), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

// True after a close failed (full disk, I/O error): HDF5 may then crash in its exit handler, so
// the programs leave with _exit after flushing their output (nt::guarded_main).
bool library_damaged() noexcept;

// The global lock every wrapper call holds.
std::recursive_mutex& library_mutex();

// Throws Error when status != NC_NOERR: "<file>: <op>: <nc_strerror(status)>".
void check(int status, const std::filesystem::path& file, const std::string& op);

enum class Kind { classic, cdf2, cdf5, netcdf4, netcdf4_classic };

struct DimInfo {
  int id = -1;
  std::string name;
  std::size_t length = 0;
  bool unlimited = false;
};

struct VarInfo {
  int id = -1;
  std::string name;
  int type = 0;              // nc_type
  std::vector<int> dims;     // dimension ids
};

// The element types variables are read and written as in memory.
template <class T>
concept Element = std::same_as<T, double> || std::same_as<T, int> || std::same_as<T, std::int16_t> ||
                  std::same_as<T, std::int8_t>;

class File {
 public:
  File() = default;
  ~File();
  File(File&& o) noexcept;
  File& operator=(File&& o) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  // Opens read-only (write=false) or for writing. Throws on failure (missing file, not NetCDF).
  static File open(const std::filesystem::path& path, bool write = false);
  // Creates a new file of the given kind; with overwrite=false an existing file is an error.
  static File create(const std::filesystem::path& path, Kind kind, bool overwrite);

  bool is_open() const noexcept { return id_ >= 0; }
  int id() const noexcept { return id_; }
  const std::filesystem::path& path() const noexcept { return path_; }
  // The file was renamed while open (an output committed into place): the name for messages.
  void renamed(const std::filesystem::path& p) { path_ = p; }
  Kind kind() const;
  void close();  // explicit close reports errors; the destructor swallows them
  void sync();
  void redef();
  void enddef();
  void set_fill(bool fill);

  // Dimensions
  int def_dim(const std::string& name, std::optional<std::size_t> length /* nullopt: unlimited */);
  std::optional<DimInfo> find_dim(const std::string& name) const;
  DimInfo dim(const std::string& name) const;  // throws when missing
  std::size_t dim_length(int dimid) const;

  // Variables
  int def_var(const std::string& name, int nc_type, const std::vector<int>& dimids);
  void def_chunking(int varid, const std::vector<std::size_t>& chunks);
  void def_deflate(int varid, int level, bool shuffle);
  std::optional<VarInfo> find_var(const std::string& name) const;
  VarInfo var(const std::string& name) const;  // throws when missing

  // Whole or partial variable I/O (start/count in dimension order; empty = scalar), in memory as
  // any Element type (libnetcdf converts to and from the variable's type). Every call checks that
  // start and count have one entry per dimension of the variable (FileError otherwise).
  template <Element T>
  void put(int varid, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
           const T* values);
  template <Element T>
  void get(int varid, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
           T* values) const;
  int get_scalar_int(const std::string& name) const;
  std::optional<int> try_scalar_int(const std::string& name) const;

  // Attributes; varid NC_GLOBAL (-1) for global ones.
  void put_att(int varid, const std::string& name, const std::string& text);
  void put_att(int varid, const std::string& name, double value);
  void put_att(int varid, const std::string& name, int value);
  void put_att(int varid, const std::string& name, const std::vector<int>& values);
  // nc_type and length of an attribute, nullopt when absent.
  std::optional<std::pair<int, std::size_t>> att_shape(int varid, const std::string& name) const;
  std::optional<std::string> get_att_text(int varid, const std::string& name) const;
  std::optional<double> get_att_double(int varid, const std::string& name) const;
  std::optional<int> get_att_int(int varid, const std::string& name) const;
  std::optional<std::vector<int>> get_att_ints(int varid, const std::string& name) const;
  std::vector<std::string> att_names(int varid) const;

 private:
  File(int id, std::filesystem::path path) : id_(id), path_(std::move(path)) {}
  void check_shape(int varid, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count) const;
  void check(int status, const std::string& op) const;
  int id_ = -1;
  std::filesystem::path path_;
};

// What is in a file, by its first bytes: "CDF\1", "CDF\2", "CDF\5", HDF5 signature, or nothing.
enum class Magic { none, cdf1, cdf2, cdf5, hdf5 };
Magic sniff(const std::filesystem::path& path);

// Layout of a classic (CDF-1/CDF-2) file read from its header, to tell a complete file from one
// cut short: libnetcdf reads missing bytes past the end of file as zeros without an error.
struct ClassicLayout {
  std::uint64_t numrecs = 0;
  std::uint64_t record_size = 0;     // bytes of one record (all record variables)
  std::uint64_t records_begin = 0;   // offset of the first record (0 when there are no record vars)
  std::uint64_t fixed_end = 0;       // end of the last non-record variable
  // Where each variable's data lies: `begin` (of record 0 for record variables) and `vsize`
  // (bytes of one record, padded to 4), in header order. Lets a program write a record's bytes
  // itself (network_test's ranks each write their rows).
  struct Var {
    std::string name;
    std::uint64_t begin = 0, vsize = 0;
    bool record = false;
  };
  std::vector<Var> vars;
  const Var* find(const std::string& name) const;
  // Records wholly present in a file of `file_size` bytes.
  std::uint64_t complete_records(std::uint64_t file_size) const;
};
// nullopt for files that are not CDF-1/CDF-2; throws FileError when the header is corrupt.
std::optional<ClassicLayout> classic_layout(const std::filesystem::path& path);

}  // namespace nt::nc
