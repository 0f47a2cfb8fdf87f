// The delays of a run measured under load (network_test --concurrent --retest) with every cell that
// was re-tested alone at its isolated value: a pair's own delay wherever the run measured it, the
// loaded one elsewhere, and no value (NaN) at the cells the reader marks unknown (the analysis: not
// re-tested and their loaded samples disagree, so no sample is the pair's own delay). The one rule
// that merges the two (network_convert isolated writes it, the analysis reads its groups and
// findings from it).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "nt/dataset.hpp"

namespace nt {

class IsolatedWhereRetested final : public Dataset {
 public:
  // base must hold isolated values (has_isolated_values). unknown: per length, empty (none) or a
  // P x P set (sender * P + receiver) of the cells that read NaN unless re-tested.
  explicit IsolatedWhereRetested(std::shared_ptr<const Dataset> base, std::vector<std::vector<bool>> unknown = {});

  Matrix matrix(std::size_t k) const override;
  std::vector<double> rows(std::size_t k, int r0, int r1) const override;
  double value(int sender, int receiver, std::size_t k) const override;
  void block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const override;
  std::optional<Matrix> isolated(std::size_t k) const override { return base_->isolated(k); }
  bool has_sample_count() const noexcept override { return base_->has_sample_count(); }
  std::vector<int> sample_count(std::size_t k) const override { return base_->sample_count(k); }
  std::vector<int> sample_count_of(int sender, int receiver) const override {
    return base_->sample_count_of(sender, receiver);
  }
  // The cells of length k measured alone: (sender * P + receiver, isolated value), by cell.
  const std::vector<std::pair<std::size_t, double>>& retested(std::size_t k) const;
  // Whether cell x (sender * P + receiver) of length k was marked unknown: it reads NaN unless re-tested.
  bool unknown(std::size_t k, std::size_t x) const { return k < unknown_.size() && !unknown_[k].empty() && unknown_[k][x]; }

 private:
  std::shared_ptr<const Dataset> base_;
  std::vector<std::vector<bool>> unknown_;  // per length: P x P bits, or empty
  // Every length's re-tested cells once read (passes that take a block of rows at every length
  // would otherwise read a P x P isolated matrix per block): what the run re-tested, 16 B a cell,
  // not P^2. Reading one length's holds its P x P isolated matrix for a moment.
  mutable std::vector<std::vector<std::pair<std::size_t, double>>> cells_;
  mutable std::vector<char> read_;
};

// Whether d holds isolated values (a statistic file of --concurrent --retest: at every length).
bool has_isolated_values(const Dataset& d);

}  // namespace nt
