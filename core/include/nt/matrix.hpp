// A dense P x P matrix of delays, row-major. Orientation (share/doc/design.md §3):
// at(i, j) is the value for data going FROM rank i TO rank j; row i is everything rank i sends.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace nt {

class Matrix {
 public:
  Matrix() = default;
  explicit Matrix(int ranks, double fill = 0.0)
      : n_(ranks), v_(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks), fill) {}
  Matrix(int ranks, std::vector<double> values);  // values.size() must be ranks*ranks

  int ranks() const noexcept { return n_; }
  double& at(int from, int to) { return v_[index(from, to)]; }
  double at(int from, int to) const { return v_[index(from, to)]; }
  std::span<double> row(int from) { return {v_.data() + index(from, 0), static_cast<std::size_t>(n_)}; }
  std::span<const double> row(int from) const {
    return {v_.data() + index(from, 0), static_cast<std::size_t>(n_)};
  }
  std::vector<double>& values() noexcept { return v_; }
  const std::vector<double>& values() const noexcept { return v_; }
  double* data() noexcept { return v_.data(); }
  const double* data() const noexcept { return v_.data(); }
  Matrix transposed() const;
  bool operator==(const Matrix&) const = default;

 private:
  std::size_t index(int from, int to) const {
    return static_cast<std::size_t>(from) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(to);
  }
  int n_ = 0;
  std::vector<double> v_;
};

}  // namespace nt
