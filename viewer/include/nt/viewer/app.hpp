// The network_viewer program: command line, headless --render, and the GUI start-up.
#pragma once

#include <QImage>

#include <memory>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

// The command line of --render: the choices are enums from the start (nt::add_enum_option).
struct RenderOptions {
  std::string file;
  std::string compare;                 // --compare
  std::string groups;                  // --groups
  ViewKind view = ViewKind::matrix;
  std::optional<long long> length;     // bytes; default: the first stored length
  int rank = 0;
  std::vector<std::pair<int, int>> pairs;  // --pair (repeatable); default 0,1
  std::vector<std::string> plot_files;     // pair view: further files overlaid (same pairs)
  int size = 0;                        // 0: one pixel per cell (plots: 800 wide)
  Normalize normalize = Normalize::matrix;
  std::vector<long long> window;       // {a, b} bytes
  std::optional<double> white, black;  // seconds
  bool log = false;
  bool relative = false;              // --relative: deviation / value
  bool decorate = false;              // kept for old scripts: decorated is the default now
  bool raw_pixels = false;             // --raw-pixels: one grey pixel per cell, no decoration
  Colormap colormap = Colormap::automatic;
  Order order = Order::rank;
  Reduce reduce = Reduce::max;         // a pixel of several cells (--size)
  bool need_values = false;            // --csv: keep the values behind the view (no streaming)
};

// "S,R" -> (S, R); UsageError naming --pair otherwise.
std::pair<int, int> parse_pair(const std::string& text);
class Document;
// Opens the document of a --render run and builds the spec (throws nt::Error for user errors).
std::unique_ptr<Document> open_for_render(const RenderOptions& o, ViewSpec& spec);
// One picture per stored length (matrix-like views), levels over the whole file unless
// --normalize or --white/--black say otherwise: into a directory as <view>_<index>_<length>B.png,
// or, when the target ends in .gif, as the frames of one animated GIF (kFrameDelayCs each).
// Returns the number of pictures (frames) written.
std::size_t render_all(const RenderOptions& o, const std::string& target, bool force);
bool is_animation_target(const std::string& target);
inline constexpr int kFrameDelayCs = 50;

// Renders the image --render writes (throws nt::Error for every user error).
QImage render_image(const RenderOptions& o);

// Keeps the large blocks of matrices and pictures in the heap between views (glibc's mmap
// threshold): run() calls it first; benchmarks call it to measure the program's path.
void keep_large_buffers();

// main(): parses the command line, renders headless or starts the GUI.
int run(int argc, char** argv);

}  // namespace nt::viewer
