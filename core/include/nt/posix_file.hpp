// One checked wrapper over the POSIX file calls the suite uses directly (positioned reads and
// writes, fsync): a file descriptor owned by an object, every failure a FileError naming the file.
// RawRowWriter writes the rows of network_test's records through it; Slabs keeps its scratch in one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace nt {

class PosixFile {
 public:
  PosixFile() = default;
  // Opens an existing file for reading and writing. Throws FileError.
  static PosixFile open_read_write(const std::filesystem::path& path);
  // An anonymous scratch file in `dir`: created there and unlinked at once, so that it holds disk
  // space only while the object lives and leaves nothing behind, even when the process is killed.
  // Throws FileError when `dir` takes no file.
  static PosixFile scratch(const std::filesystem::path& dir);
  PosixFile(PosixFile&& o) noexcept;
  PosixFile& operator=(PosixFile&& o) noexcept;
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;
  ~PosixFile();

  // All n bytes at byte offset `off` (retrying short writes and EINTR); a full disk is a FileError.
  void write_at(const void* p, std::size_t n, std::uint64_t off);
  // All n bytes at byte offset `off`; a short file is a FileError.
  void read_at(void* p, std::size_t n, std::uint64_t off) const;
  // Up to n bytes at `off` (fewer at the end of the file); returns how many.
  std::size_t read_some_at(void* p, std::size_t n, std::uint64_t off) const;
  void sync();
  const std::filesystem::path& path() const noexcept { return path_; }
  bool is_open() const noexcept { return fd_ >= 0; }

 private:
  PosixFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;  // for messages (the directory, for a scratch file)
};

}  // namespace nt
