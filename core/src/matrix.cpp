#include "nt/matrix.hpp"

#include <stdexcept>
#include <string>

namespace nt {

Matrix::Matrix(int ranks, std::vector<double> values) : n_(ranks), v_(std::move(values)) {
  if (ranks < 0 || v_.size() != static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks))
    throw std::invalid_argument("Matrix: " + std::to_string(v_.size()) + " values for " +
                                std::to_string(ranks) + " ranks");
}

Matrix Matrix::transposed() const {
  Matrix t(n_);
  for (int i = 0; i < n_; ++i)
    for (int j = 0; j < n_; ++j) t.at(j, i) = at(i, j);
  return t;
}

}  // namespace nt
