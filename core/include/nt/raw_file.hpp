// Raw result files (share/doc/design.md §4): CDF-2, one record per message length, synced after
// every record so that a file cut off by a killed batch job holds every completed length.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nt/dataset.hpp"
#include "nt/netcdf.hpp"
#include "nt/posix_file.hpp"
#include "nt/output.hpp"
#include "nt/params.hpp"

namespace nt {

// "<prefix>_average.nc" etc.; "<prefix>_all.nc" for Statistic::all (ResultSet(prefix).statistic(s)).
std::filesystem::path result_path(const std::filesystem::path& prefix, Statistic s);

// Record variables a measurement may add beside `data` (same record, written before the
// length like the data, so the one rule for a complete record covers them).
struct RecordExtras {
  bool sample_count = false;  // sample_count(n, x, y): samples taken per cell (--precision)
  bool sample_flags = false;  // sample_flags(n, x, y, s): validity bits per sample (_all files)
  // isolated(n, x, y): the file's statistic of the cell measured again alone, after the loaded
  // measurement of a concurrent schedule (network_test --retest); NaN where not re-tested.
  bool isolated = false;
};
inline constexpr const char* kSampleCountVar = "sample_count";
inline constexpr const char* kIsolatedVar = "isolated";
inline constexpr const char* kSampleFlagsVar = "sample_flags";
// Bits of sample_flags (flag_masks/flag_meanings in the file say the same).
inline constexpr std::uint8_t kSampleLateFlag = 1, kSamplePreemptedFlag = 2, kSampleNotTakenFlag = 4;

class RawWriter {
 public:
  // Creates the file (CDF-2), writes parameters and metadata. `samples` > 0 makes an _all file
  // with data(n, x, y, s). An existing file is an error unless overwrite is set.
  RawWriter(const std::filesystem::path& path, const FileInfo& info, bool overwrite, int samples = 0,
            RecordExtras extras = {});
  // Reopens an existing file to append more records (--resume). Throws UsageError naming the
  // first parameter that differs from `expected` (mode, statistic, ranks, sweep, repeats...),
  // or an extra variable the file lacks.
  static RawWriter resume(const std::filesystem::path& path, const FileInfo& expected, int samples = 0,
                          RecordExtras extras = {});

  RawWriter(RawWriter&&) noexcept = default;
  RawWriter& operator=(RawWriter&&) noexcept = default;
  ~RawWriter() = default;

  // Appends one record (matrix of P*P values in our orientation, or P*P*samples for _all
  // files, [(x*P + y)*samples + s]) and syncs it to disk.
  // counts (P*P), flags (P*P*samples) and isolated (P*P) go to the extra variables the writer
  // was made with.
  void append(std::int64_t message_length, std::span<const double> values, std::span<const int> counts = {},
              std::span<const std::uint8_t> flags = {}, std::span<const double> isolated = {});
  void append(std::int64_t message_length, const Matrix& m) { append(message_length, m.values()); }
  std::size_t records() const noexcept { return lengths_.size(); }
  const std::vector<std::int64_t>& lengths() const noexcept { return lengths_; }
  const std::filesystem::path& path() const noexcept { return file_.path(); }
  void close() { file_.close(); }
  // Continue after record n (n <= records()): the next append overwrites record n. --resume uses
  // it so that every file of a set restarts at the first record that is not complete in all.
  void rewind_to(std::size_t n) {
    if (n < lengths_.size()) lengths_.resize(n);
  }
  // The file was moved into place under this name (the open handle follows it); used in messages.
  void renamed(const std::filesystem::path& p) { file_.renamed(p); }

 private:
  RawWriter() = default;
  nc::File file_;
  int data_var_ = -1, length_var_ = -1, ranks_ = 0, samples_ = 0;
  int count_var_ = -1, flags_var_ = -1, isolated_var_ = -1;
  std::vector<std::int64_t> lengths_;
};

// Writes rows of the records of a raw file that RawWriter created (CDF-2, no fill), at byte
// offsets taken from its classic header, so that many processes can each write their own rows
// of a record with pwrite (network_test: every rank its row). Then ONE process commits the
// record: its message length, the padding, numrecs = max(numrecs, k + 1) in the header, fsync.
// The bytes are those RawWriter::append writes (tested byte for byte); the promises too: a record
// is counted only after every row is on disk, a killed job leaves at most one record that
// readers and --resume do not count.
class RawRowWriter {
 public:
  // Opens the file for writing; checks that its layout is that of a raw file of P ranks and
  // `samples` per cell (0: statistic file) with the extra variables given. Throws FileError.
  RawRowWriter(const std::filesystem::path& path, int P, int samples, RecordExtras extras);
  // A digest of the header bytes: equal on two processes when they opened the same file.
  std::uint64_t header_digest() const noexcept { return digest_; }
  // Row x of record k: P values (P * samples for _all files), counts (P), flags (P * samples)
  // and isolated values (P) when the file has those variables.
  void put_row(std::size_t k, int x, std::span<const double> values, std::span<const int> counts = {},
               std::span<const std::uint8_t> flags = {}, std::span<const double> isolated = {});
  void sync();  // fsync of the rows written by this process
  // After every row of record k is synced (by every writer): the length, then numrecs; fsync.
  void commit(std::size_t k, std::int64_t message_length);
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  PosixFile file_;
  std::size_t P_ = 0, S_ = 0;
  std::uint64_t recsize_ = 0, numrecs_ = 0, data_ = 0, length_ = 0, count_ = 0, flags_ = 0, flags_vsize_ = 0;
  std::uint64_t isolated_ = 0;
  bool has_count_ = false, has_flags_ = false, has_isolated_ = false;
  std::uint64_t digest_ = 0;
  std::vector<unsigned char> buf_;
};

// Reader for raw CDF files, ours and legacy network_test2 ones (format_version 0: no
// message_length, row = measuring rank). Reads lazily with hyperslabs.
class RawReader final : public Dataset {
 public:
  explicit RawReader(const std::filesystem::path& path);
  Matrix matrix(std::size_t k) const override;
  std::vector<double> row(int sender, std::size_t k0, std::size_t k1) const override;
  std::vector<double> column(int receiver, std::size_t k0, std::size_t k1) const override;
  std::vector<double> pair(int sender, int receiver) const override;
  double value(int sender, int receiver, std::size_t k) const override;
  void block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const override;
  bool legacy() const noexcept { return info_.meta.format_version == 0; }
  // Samples per cell in an _all file (0 for statistic files).
  int samples() const noexcept { return samples_; }
  // Every sample of (sender, receiver) at matrix k (only for _all files).
  std::vector<double> samples_of(int sender, int receiver, std::size_t k) const;
  // Samples taken per cell at matrix k, [x*P + y], when the file records them (--precision);
  // empty otherwise.
  bool has_sample_count() const noexcept override { return count_var_ >= 0; }
  std::vector<int> sample_count(std::size_t k) const override;
  // Samples taken for (sender, receiver) at every length; empty when not recorded.
  std::vector<int> sample_count_of(int sender, int receiver) const override;
  // Validity flags of every sample at matrix k, [(x*P + y)*samples + s] (_all files with
  // flags); empty otherwise.
  bool has_sample_flags() const noexcept override { return flags_var_ >= 0; }
  std::vector<std::uint8_t> sample_flags(std::size_t k) const override;
  // The isolated re-test of a concurrent run (variable `isolated`), NaN where not re-tested.
  bool has_isolated() const noexcept { return isolated_var_ >= 0; }
  std::optional<Matrix> isolated(std::size_t k) const override;

 private:
  void find_extra_vars(const std::filesystem::path& path, const std::vector<int>& data_dims);
  void read_lengths(const std::filesystem::path& path, int n_dim, std::size_t n_complete);
  // Reads the hyperslab of the file variable (file orientation) into `out`.
  void read_slab(std::size_t n0, std::size_t nn, std::size_t x0, std::size_t nx, std::size_t y0,
                 std::size_t ny, double* out) const;
  // row() (as_sender) or column() of `rank` over matrices [k0, k1), in our orientation.
  std::vector<double> line(int rank, bool as_sender, std::size_t k0, std::size_t k1) const;
  nc::File file_;
  int data_var_ = -1;
  int samples_ = 0;
  int count_var_ = -1, flags_var_ = -1, isolated_var_ = -1;
  bool transposed_ = false;  // legacy files whose rows are receivers
  bool fill_is_missing_ = false;  // NetCDF-4: unwritten chunks read as the fill value
};

// Reads the test parameters and metadata of any of the suite's NetCDF files (raw, NetCDF-4
// copy, clustered), refusing a format_version newer than ours with a message naming both.
FileInfo read_file_info(const nc::File& f);
// Writes them into a file in define mode (dimension-free scalars and global attributes).
void write_file_info(nc::File& f, const FileInfo& info);

// Writes any Dataset as a complete raw file (conversions, synthetic data), atomically.
void write_raw(const std::filesystem::path& path, const Dataset& d, bool overwrite);
// Writes it into an output under construction (committed by the caller, e.g. with an OutputSet).
void write_raw(PendingOutput& out, const Dataset& d);

}  // namespace nt
