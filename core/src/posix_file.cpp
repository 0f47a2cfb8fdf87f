#include "nt/posix_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "nt/error.hpp"

namespace fs = std::filesystem;

namespace nt {

namespace {
std::string why() { return std::strerror(errno); }
}  // namespace

PosixFile PosixFile::open_read_write(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw FileError(path, "cannot open for writing: " + why());
  return {fd, path};
}

PosixFile PosixFile::scratch(const fs::path& dir) {
  const fs::path where = dir.empty() ? fs::path(".") : dir;
#ifdef O_TMPFILE
  if (const int fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600); fd >= 0) return {fd, where};
#endif
  // File systems without O_TMPFILE: a named file, unlinked at once.
  std::string name = (where / ".nt-scratch-XXXXXX").string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw FileError(where, "cannot create a scratch file: " + why());
  ::unlink(name.c_str());
  return {fd, where};
}

PosixFile::PosixFile(PosixFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

PosixFile& PosixFile::operator=(PosixFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

PosixFile::~PosixFile() {
  if (fd_ >= 0) ::close(fd_);
}

void PosixFile::write_at(const void* p, std::size_t n, std::uint64_t off) {
  const auto* c = static_cast<const unsigned char*>(p);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, c, n, static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw FileError(path_, "write failed: " + (w == 0 ? std::string("no progress") : why()));
    c += w;
    n -= static_cast<std::size_t>(w);
    off += static_cast<std::uint64_t>(w);
  }
}

std::size_t PosixFile::read_some_at(void* p, std::size_t n, std::uint64_t off) const {
  auto* c = static_cast<unsigned char*>(p);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, c + got, n - got, static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw FileError(path_, "read failed: " + why());
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

void PosixFile::read_at(void* p, std::size_t n, std::uint64_t off) const {
  if (read_some_at(p, n, off) != n) throw FileError(path_, "ends before the " + std::to_string(n) + " bytes at " + std::to_string(off));
}

void PosixFile::sync() {
  if (::fsync(fd_) != 0) throw FileError(path_, "fsync failed: " + why());
}

}  // namespace nt
