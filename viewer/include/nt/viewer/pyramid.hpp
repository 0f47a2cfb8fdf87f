// Level of detail for big matrices: blocks of f x f grey cells reduced to one pixel (the largest
// value or the median), row by row as the rows arrive (the streamed --render, which never holds
// a P x P image), or as a pyramid of power-of-two levels built on demand from a whole cell image
// (the GUI, which draws the level whose blocks are just larger than a screen pixel).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "nt/viewer/grey_image.hpp"
#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

// Reduces rows of grey cells (cells_image's levels: darker = larger value) f x f blocks at a
// time. Reduce::max keeps the darkest cell of a block; Reduce::median the median grey level of
// the cells with data (the darker of the two middle ones for an even count). A block without
// data is white and marked as no data. Feed rows in order; after each f rows, and after the
// last one, take() the reduced row.
class BlockReducer {
 public:
  BlockReducer(int cols, int f, Reduce mode);
  int out_cols() const { return out_cols_; }
  int rows_added() const { return rows_; }
  // `grey`: the row's cols levels; `nodata`: cols flags (non-zero: no data), nullptr: all data.
  void add_row(const std::uint8_t* grey, const std::uint8_t* nodata);
  // Writes the reduced row (out_cols levels), marks its blocks without data in row y of `mask`
  // (when given), and starts the next band.
  void take(std::uint8_t* grey, CellMask* mask, int y);

 private:
  int cols_, f_, out_cols_;
  Reduce mode_;
  int rows_ = 0;
  bool hist_ = false;                    // median of big blocks: 256-bin histograms
  std::vector<std::uint8_t> best_;       // max: darkest level so far
  std::vector<std::uint8_t> has_;        // max: any data in the block
  std::vector<std::uint8_t> buf_;        // median of small blocks: the levels of each block
  std::vector<std::uint32_t> hist_buf_;  // median of big blocks
  std::vector<std::uint32_t> count_;     // median: cells with data per block
};

// Reduces a whole cell image by f (f >= 2): ceil(w/f) x ceil(h/f) pixels and their no-data mask.
// No data comes from `nodata` (per pixel of `cells`) or, when null, from NaN in `values` (one per
// pixel), or else there is none.
std::pair<GreyImage, CellMask> reduce_cells(const GreyImage& cells, int f, Reduce mode, const CellMask* nodata,
                                            const std::vector<double>* values);

// The levels of one cell image: level L has blocks of 2^L cells (level 0 is the image itself),
// each built on first use (max levels from the level below, median levels from the image, so
// that each median is the true median of its block) and kept. Thread-safe.
class Pyramid {
 public:
  Pyramid(GreyImage base, std::shared_ptr<const CellMask> nodata, std::shared_ptr<const std::vector<double>> values);
  struct Level {
    GreyImage grey;
    CellMask nodata;  // empty (0 x 0) for level 0 without a mask
  };
  // Number of levels: the last one is a single pixel.
  int levels() const { return levels_; }
  // The level L image (clamped to 0 .. levels()-1).
  const Level& level(int L, Reduce mode);
  // Whether the base pixel (x, y) holds no data.
  bool no_data(int x, int y) const;

 private:
  GreyImage base_;
  std::shared_ptr<const CellMask> nodata_;
  std::shared_ptr<const std::vector<double>> values_;
  int levels_ = 1;
  Level base_level_;
  std::mutex mutex_;
  std::map<std::pair<int, Reduce>, Level> built_;
};

}  // namespace nt::viewer
