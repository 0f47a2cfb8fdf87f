// The data model: a stack of P x P delay matrices indexed by message length.
//
// A Dataset may be backed by a file and read lazily: matrix(k) reads one matrix, row()/column()
// read one rank over a window of lengths, value() one cell. Nothing reads the whole file unless
// asked to. Orientation is always ours (x = sender, y = receiver) whatever the file stores.
// Datasets are not thread-safe; calls into NetCDF are serialised globally (nt/netcdf.hpp), so
// different Datasets may be used from different threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "nt/matrix.hpp"
#include "nt/params.hpp"

namespace nt {

class Dataset {
 public:
  virtual ~Dataset() = default;
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;

  const FileInfo& info() const noexcept { return info_; }
  const TestParameters& params() const noexcept { return info_.params; }
  const Metadata& meta() const noexcept { return info_.meta; }
  int ranks() const noexcept { return info_.params.proc_num; }
  // Message length in bytes of every stored matrix, in file order.
  const std::vector<std::int64_t>& lengths() const noexcept { return lengths_; }
  std::size_t count() const noexcept { return lengths_.size(); }
  // Index of the matrix with exactly this length, or -1.
  std::ptrdiff_t index_of_length(std::int64_t length) const;
  // "raw", "legacy", "text", "clustered", "netcdf4", "memory": what the data came from.
  const std::string& format() const noexcept { return format_; }
  const std::filesystem::path& source() const noexcept { return source_; }

  virtual Matrix matrix(std::size_t k) const = 0;
  // Row `sender` for matrices [k0, k1): (k1-k0) x P values, [(k-k0)*P + receiver].
  virtual std::vector<double> row(int sender, std::size_t k0, std::size_t k1) const;
  // Column `receiver` for matrices [k0, k1): (k1-k0) x P values, [(k-k0)*P + sender].
  virtual std::vector<double> column(int receiver, std::size_t k0, std::size_t k1) const;
  // Rows [r0, r1) of matrix k (a block of senders): (r1-r0) x P values, [(i-r0)*P + receiver].
  // What a reader needs to stream a matrix in bounded memory; readers that can (clustered files:
  // only these rows' cluster offsets) read the block without the rest of the matrix.
  virtual std::vector<double> rows(std::size_t k, int r0, int r1) const;
  // Value of (sender, receiver) for every length.
  virtual std::vector<double> pair(int sender, int receiver) const;
  virtual double value(int sender, int receiver, std::size_t k) const;
  // Senders [x0, x0+nx) x receivers [y0, y0+ny) of matrix k into out, [x*ny + y]: a block without
  // the rest of the matrix where the format allows (raw files read the hyperslab; the others read
  // the matrix). For readers of files larger than memory, one block of rows at a time.
  virtual void block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const;
  // Matrix k measured again alone (network_test --concurrent --retest: the pairs whose loaded
  // delay stood out, re-tested one after the other), NaN in the cells not re-tested; nothing
  // when the data has no isolated values (sequential runs, earlier versions, other formats).
  // matrix(k) stays the loaded measurement.
  virtual std::optional<Matrix> isolated(std::size_t k) const;
  // Samples taken per cell at matrix k, [x*P + y], when the data records them (network_test
  // --precision, raw files); empty otherwise. sample_count_of: (sender, receiver) at every length.
  virtual bool has_sample_count() const noexcept { return false; }
  virtual std::vector<int> sample_count(std::size_t k) const;
  virtual std::vector<int> sample_count_of(int sender, int receiver) const;
  // Validity flags of every sample at matrix k, [(x*P + y)*samples + s] (raw _all files with
  // flags); empty otherwise.
  virtual bool has_sample_flags() const noexcept { return false; }
  virtual std::vector<std::uint8_t> sample_flags(std::size_t k) const;

 protected:
  Dataset() = default;
  void check_index(std::size_t k) const;
  void check_rank(int r) const;
  void check_pair(int sender, int receiver) const {
    check_rank(sender);
    check_rank(receiver);
  }
  void check_window(std::size_t k0, std::size_t k1) const;
  void check_rows(std::size_t k, int r0, int r1) const;
  // block()'s arguments: length k, senders [x0, x0+nx), receivers [y0, y0+ny) inside the matrix.
  // False when the block is empty (nothing to read).
  bool check_block(std::size_t k, int x0, int nx, int y0, int ny) const;
  FileInfo info_;
  std::vector<std::int64_t> lengths_;
  std::string format_;
  std::filesystem::path source_;
};

// Whether a file holds every length its run planned, the one rule for "cut short" (a killed run
// leaves fewer lengths than planned). A linear sweep plans (end - begin) / step + 1 lengths (the
// original network_test2 stopped before the end: ceil((end - begin) / step)); a list or geometric
// sweep (step 0) records only its last length, so it is cut short when it stops below it, and
// `planned` is 0 (unknown).
struct SweepCompleteness {
  std::size_t stored = 0;
  std::size_t planned = 0;
  bool cut_short = false;
};
SweepCompleteness sweep_completeness(const Dataset& d);

// Input limits, one place. The memory a reader may commit to (default: half of the machine's
// memory; NT_MEMORY_LIMIT=bytes, with an optional K/M/G suffix, changes it).
std::uint64_t memory_limit();
// The memory a job may use, the one place that finds it: the smallest of
// NT_MEMORY_LIMIT, the address-space limit (RLIMIT_AS, `ulimit -v`) less what this process has
// already mapped, the memory.max (cgroup v2) or memory.limit_in_bytes (v1) of this process's
// cgroup, and the machine's physical memory. `source` names the one in force, for messages.
struct MemoryLimit {
  std::uint64_t bytes = 0;
  std::string source;
};
MemoryLimit effective_memory_limit();
// Throws nt::Error (exit code 2) when `bytes` do not fit effective_memory_limit(), in one line
// naming the limit and what `what` needs: "out of memory: <what> needs 12.3 GB, more than the
// 4.29 GB left under NT_MEMORY_LIMIT=4G". Programs call it with a formula in P and n before they
// allocate, so a job that cannot fit says so up front instead of being killed by the kernel.
void require_memory(std::uint64_t bytes, const std::string& what);
// Throws FileError unless P ranks and n lengths are possible: P >= 1, one P x P matrix of
// doubles within memory_limit(), P and n within the suite's int-based file layout.
void check_declared_size(const std::filesystem::path& file, long long ranks, long long lengths);
// Throws FileError when a compressed (NetCDF-4) file declares more data than it can hold: even a
// perfectly compressible sweep does not shrink 1000-fold, so a tiny file declaring gigabytes is
// corrupt, and reading its unwritten chunks would take minutes.
void check_compressed_size(const std::filesystem::path& file, long double declared_bytes);
// Throws FileError unless the lengths are non-negative and strictly increasing: the matrices of
// a file are indexed by them, and every reader relies on that order.
void check_lengths(const std::filesystem::path& file, const std::vector<std::int64_t>& lengths);

// A Dataset held in memory: synthetic data, text parsed from a stream (read_text), test fixtures.
class MemoryDataset final : public Dataset {
 public:
  MemoryDataset(FileInfo info, std::string format = "memory", std::filesystem::path source = {});
  void append(std::int64_t length, Matrix m);  // m.ranks() must equal proc_num
  Matrix matrix(std::size_t k) const override;
  std::vector<double> rows(std::size_t k, int r0, int r1) const override;
  double value(int sender, int receiver, std::size_t k) const override;
  const Matrix& at(std::size_t k) const;
  Matrix& at(std::size_t k);
  FileInfo& mutable_info() noexcept { return info_; }

 private:
  std::vector<Matrix> matrices_;
};

// Opens any file the suite knows by content, not by name: raw CDF files (ours or legacy
// network_test2), NetCDF-4 copies, clustered files, and the text format. Hosts are read from the
// file, or else from the `<prefix>_hosts.txt` beside it. Throws FileError with a clear message.
std::unique_ptr<Dataset> open_dataset(const std::filesystem::path& path);

}  // namespace nt
