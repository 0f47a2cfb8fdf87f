// The original network_test2 text format, read and written at full precision.
//
// Header lines `processors N`, `test type "..."`, `data type "..."`, `begin message length B`,
// `end message length E`, `step length S`, `noise message length L`, `number of noise messages M`,
// `number of noise processes P`, `number of repeates R`, `hosts:` and one host per line; then per
// length a line `Message length B` followed by N lines of N tab-separated values. Values are
// written with 17 significant digits (the original's %f lost everything below a microsecond) and
// read back bit-exactly. Matrices in text files are in our orientation (row = sender).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <vector>

#include "nt/dataset.hpp"

namespace nt {

// The whole file in memory (every matrix as doubles: 8 x lengths x P^2 bytes). Programs open text
// files with open_dataset, which reads them length by length (TextDataset).
std::unique_ptr<MemoryDataset> read_text(const std::filesystem::path& path);
std::unique_ptr<MemoryDataset> read_text(std::istream& in, const std::filesystem::path& name);

// A text file read lazily, like the NetCDF readers: opening it checks the whole file as read_text
// does (same rules, same errors) in one pass that keeps no values, only where each matrix starts
// and where every stride-th row starts (at most kMaxMarks marks, 16 bytes each). matrix(k), rows(),
// block(), value(), row() and column() seek there and parse only the rows they need (every row
// of the matrix for an original's file whose rows are receivers, when columns are asked for).
// Values are those read_text gives, bit for bit.
class TextDataset final : public Dataset {
 public:
  // max_marks: how many row positions to keep (tests use a few, to skip lines between them).
  explicit TextDataset(const std::filesystem::path& path, std::size_t max_marks = kMaxMarks);
  Matrix matrix(std::size_t k) const override;
  std::vector<double> row(int sender, std::size_t k0, std::size_t k1) const override;
  std::vector<double> column(int receiver, std::size_t k0, std::size_t k1) const override;
  std::vector<double> rows(std::size_t k, int r0, int r1) const override;
  double value(int sender, int receiver, std::size_t k) const override;
  void block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const override;
  // Rows of the file between two recorded positions (1 unless the file has over kMaxMarks rows).
  std::uint64_t stride() const noexcept { return stride_; }
  static constexpr std::size_t kMaxMarks = std::size_t{1} << 19;

 private:
  struct Mark {
    std::uint64_t offset = 0;  // byte where the line after the one numbered `line` starts
    int line = 0;
  };
  // Rows [f0, f1) of matrix k as the file stores them, values [c0, c1) of each: fn(row, values).
  void read_rows(std::size_t k, int f0, int f1, int c0, int c1,
                 const std::function<void(int, const double*)>& fn) const;
  // row() (as_sender) or column() of `rank` over matrices [k0, k1).
  std::vector<double> line(int rank, bool as_sender, std::size_t k0, std::size_t k1) const;
  std::vector<Mark> starts_;  // per matrix: where its rows start
  std::vector<Mark> marks_;   // rows k*P + i that are multiples of stride_
  std::uint64_t stride_ = 1;
  std::size_t max_marks_ = kMaxMarks;
  bool transposed_ = false;   // an original's file whose rows are receivers
  mutable std::mutex mutex_;  // reads from several threads take turns on the one stream
  mutable std::ifstream in_;
};
void write_text(const std::filesystem::path& path, const Dataset& d, bool overwrite);
void write_text(std::ostream& out, const Dataset& d);
// True when the file starts like a text result file.
bool looks_like_text(const std::filesystem::path& path);

}  // namespace nt
