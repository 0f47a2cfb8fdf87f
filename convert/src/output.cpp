#include "output.hpp"

#include <cerrno>
#include <cstring>
#include <system_error>
#include <unistd.h>

#include "nt/error.hpp"
#include "nt/hosts.hpp"

namespace nt::convert::detail {

PendingFile::PendingFile(fs::path final_path, bool force) : final_(std::move(final_path)) {
  if (final_.empty()) throw UsageError("empty output file name");
  check_writable(final_, force);
  if (fs::is_directory(final_)) throw FileError(final_, "is a directory");
  // The temporary lives in the same directory so that the rename is atomic.
  temp_ = final_;
  temp_ += ".partial-" + std::to_string(::getpid());
}

PendingFile::PendingFile(PendingFile&& o) noexcept
    : final_(std::move(o.final_)), temp_(std::move(o.temp_)), done_(o.done_) {
  o.done_ = true;
}

PendingFile::~PendingFile() {
  if (!done_) {
    std::error_code ec;
    fs::remove(temp_, ec);
  }
}

void PendingFile::commit() {
  std::error_code ec;
  fs::rename(temp_, final_, ec);
  if (ec) throw FileError(final_, "cannot move the finished output into place: " + ec.message());
  done_ = true;
}

TextOutput::TextOutput(const fs::path& final_path, bool force)
    : file_(final_path, force), buffer_(1 << 20) {
  out_.rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  out_.open(file_.temp(), std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) throw FileError(final_path, std::string("cannot create: ") + std::strerror(errno));
}

void TextOutput::commit() {
  out_.flush();
  if (!out_) throw FileError(file_.target(), std::string("write failed: ") + std::strerror(errno));
  out_.close();
  if (out_.fail()) throw FileError(file_.target(), std::string("close failed: ") + std::strerror(errno));
  file_.commit();
}

void check_all_writable(const std::vector<fs::path>& paths, bool force) {
  for (const auto& p : paths) check_writable(p, force);
}

}  // namespace nt::convert::detail
