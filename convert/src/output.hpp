// network_convert's outputs, on the core output discipline (nt/output.hpp).
#pragma once

#include <filesystem>
#include <ostream>
#include <vector>

#include "nt/output.hpp"

namespace nt::convert::detail {

namespace fs = std::filesystem;

// A text output: a PendingOutput with its FileStream; commit() checks every write, then moves
// the file into place.
class TextOutput {
 public:
  TextOutput(const fs::path& final_path, bool force, const std::vector<fs::path>& inputs = {});
  std::ostream& stream() { return out_; }
  void commit();

 private:
  PendingOutput file_;
  FileStream out_;
};

// Throws FileError for the paths that cannot be written (exist without force, not regular files,
// are an input) before any work is done.
void check_all_writable(const std::vector<fs::path>& paths, bool force, const std::vector<fs::path>& inputs = {});

}  // namespace nt::convert::detail
