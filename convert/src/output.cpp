#include "output.hpp"

#include <cerrno>

#include "nt/error.hpp"

namespace nt::convert::detail {

TextOutput::TextOutput(const fs::path& final_path, bool force, const std::vector<fs::path>& inputs)
    : file_(final_path, force, inputs), buffer_(1 << 20) {
  out_.rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  out_.open(file_.temp(), std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) throw FileError(final_path, "cannot create: " + errno_text(errno));
}

void TextOutput::commit() {
  errno = 0;
  out_.flush();
  if (!out_) throw FileError(file_.target(), "write failed: " + errno_text(errno));
  out_.close();
  if (out_.fail()) throw FileError(file_.target(), "close failed: " + errno_text(errno));
  file_.commit();
}

void check_all_writable(const std::vector<fs::path>& paths, bool force, const std::vector<fs::path>& inputs) {
  for (const auto& p : paths) {
    check_output(p, force);
    refuse_same_file(p, inputs);
  }
}

}  // namespace nt::convert::detail
