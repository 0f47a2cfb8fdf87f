// The network_viewer program: command line, headless --render, and the GUI start-up.
#pragma once

#include <QImage>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "view_spec.hpp"

namespace ntv {

struct RenderOptions {
  std::string file;
  std::string compare;                 // --compare
  std::string groups;                  // --groups
  std::string view = "matrix";
  std::optional<long long> length;     // bytes; default: the first stored length
  int rank = 0;
  std::vector<std::pair<int, int>> pairs;  // --pair (repeatable); default 0,1
  std::vector<std::string> plot_files;     // pair view: further files overlaid (same pairs)
  int size = 0;                        // 0: one pixel per cell (plots: 800 wide)
  std::string normalize = "matrix";
  std::vector<long long> window;       // {a, b} bytes
  std::optional<double> white, black;  // seconds
  bool log = false;
  bool relative = false;              // --relative: deviation / value
  bool decorate = false;
};

// "S,R" -> (S, R); UsageError naming --pair otherwise.
std::pair<int, int> parse_pair(const std::string& text);

// Renders the image --render writes (throws nt::Error for every user error).
QImage render_image(const RenderOptions& o);

// main(): parses the command line, renders headless or starts the GUI.
int run(int argc, char** argv);

}  // namespace ntv
