// Equal-sized slabs of values (a region's P x P offsets, a length's P x P residuals) appended one
// at a time and read back one at a time: in memory, or in an anonymous scratch file when they
// would not fit. network_cluster compress produces a clustered file's large variables this way,
// so that its memory is a few P x P arrays, not one per matrix of the input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "nt/posix_file.hpp"

namespace nt {

template <class T>
class Slabs {
 public:
  Slabs() = default;
  // Slabs of `slab` values, kept in a scratch file in `dir` when `dir` is given (PosixFile::scratch:
  // nothing is left behind), else in memory.
  explicit Slabs(std::size_t slab, const std::filesystem::path& dir = {}) : slab_(slab) {
    if (!dir.empty()) file_ = std::make_shared<PosixFile>(PosixFile::scratch(dir));
  }
  std::size_t slab_size() const noexcept { return slab_; }
  std::size_t count() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  bool on_disk() const noexcept { return static_cast<bool>(file_); }

  void append(const T* values) {
    if (file_)
      file_->write_at(values, bytes(), bytes() * count_);
    else
      mem_.insert(mem_.end(), values, values + slab_);
    ++count_;
  }
  void read(std::size_t i, T* out) const {
    if (file_)
      file_->read_at(out, bytes(), bytes() * i);
    else
      std::copy_n(mem_.begin() + static_cast<std::ptrdiff_t>(i * slab_), slab_, out);
  }
  std::vector<T> slab(std::size_t i) const {
    std::vector<T> v(slab_);
    read(i, v.data());
    return v;
  }
  // Forgets every slab (a scratch file is reused from its start).
  void clear() {
    mem_.clear();
    mem_.shrink_to_fit();
    count_ = 0;
  }

 private:
  std::size_t bytes() const noexcept { return slab_ * sizeof(T); }
  std::size_t slab_ = 0, count_ = 0;
  std::vector<T> mem_;
  std::shared_ptr<PosixFile> file_;  // shared by copies, which only read
};

}  // namespace nt
