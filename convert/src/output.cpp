#include "output.hpp"

#include "nt/error.hpp"

namespace nt::convert::detail {

TextOutput::TextOutput(const fs::path& final_path, bool force, const std::vector<fs::path>& inputs)
    : file_(final_path, force, inputs), out_(file_) {}

void TextOutput::commit() {
  out_.finish();
  file_.commit();
}

void check_all_writable(const std::vector<fs::path>& paths, bool force, const std::vector<fs::path>& inputs) {
  for (const auto& p : paths) {
    check_output(p, force);
    refuse_same_file(p, inputs);
  }
}

}  // namespace nt::convert::detail
