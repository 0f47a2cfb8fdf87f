// The output discipline every program follows (one place for the rule):
//
//  * an output is written to a temporary in the target directory (".NAME.nt-tmp-PID-N"), synced,
//    then committed by a rename; without --force the commit never replaces a file that appeared
//    meanwhile (renameat2 RENAME_NOREPLACE, or link+unlink where the filesystem lacks it);
//  * only regular files are ever replaced (never a device node, a symlink or a directory), and
//    an output that is the same file as an input is refused;
//  * a missing output directory is created; a name too long or a directory that cannot be
//    written is a clear user error (exit 2) naming the cause;
//  * temporaries are removed on every error path, on SIGINT/SIGTERM/SIGHUP, and temporaries that
//    a killed run left behind (their PID no longer alive) are removed by the next writer;
//  * several outputs of one command (OutputSet) appear together or not at all: their commit goes
//    through a journal (".NAME.nt-commit-HOST-PID"), and a commit that a SIGKILL interrupted is
//    completed by the next program of this host that writes into the directory or opens a result
//    file there (recover_interrupted_outputs).
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

namespace nt {

// Checks an output path before any work is done: name length, the directory (created when
// missing), an existing target (error unless force; never allowed when it is not a regular
// file). Throws FileError. Cheap; PendingOutput calls it again at commit time.
void check_output(const std::filesystem::path& target, bool force);

// Throws FileError when `target` exists and is the same file (device and inode) as one of the
// inputs: writing it would destroy the input before it is read.
void refuse_same_file(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs);

// One output under construction. Write to temp(), then commit(). The destructor removes the
// temporary unless committed.
class PendingOutput {
 public:
  // `inputs`: files this command reads; the target must not be one of them.
  PendingOutput(std::filesystem::path target, bool force, const std::vector<std::filesystem::path>& inputs = {});
  ~PendingOutput();
  PendingOutput(PendingOutput&& o) noexcept;
  PendingOutput& operator=(PendingOutput&&) = delete;
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;

  const std::filesystem::path& temp() const noexcept { return temp_; }
  const std::filesystem::path& target() const noexcept { return target_; }
  bool committed() const noexcept { return committed_; }
  bool force() const noexcept { return force_; }
  // fsync the temporary (once); commit() does it when it was not done.
  void sync();
  // fsync the temporary, move it into place (no replace unless force), fsync the directory.
  void commit();
  // Removes the committed file again (OutputSet rollback). Only for files this object made.
  void uncommit() noexcept;
  // Removes the temporary now (after a failure).
  void discard() noexcept;

 private:
  std::filesystem::path target_, temp_;
  bool force_ = false;
  bool committed_ = false;
  bool synced_ = false;
  bool replaced_ = false;  // the commit replaced an older file (cannot be rolled back)
  int slot_ = -1;          // signal-cleanup registry slot
};

// Several outputs of one command: commit_all() commits every one or, when one fails, removes
// the ones already committed (those that did not replace an older file) and rethrows.
class OutputSet {
 public:
  PendingOutput& add(const std::filesystem::path& target, bool force,
                     const std::vector<std::filesystem::path>& inputs = {});
  void commit_all();
  std::size_t size() const noexcept { return outputs_.size(); }

 private:
  std::vector<std::unique_ptr<PendingOutput>> outputs_;
};

// A buffered std::ostream onto a PendingOutput's temporary that keeps the system error of a
// failed write (std::ofstream loses it): finish() flushes, closes and throws FileError naming
// the cause ("No space left on device").
class FileStream : public std::ostream {
 public:
  explicit FileStream(PendingOutput& out);
  ~FileStream() override;
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;
  void finish();

 private:
  class Buf;
  std::unique_ptr<Buf> buf_;
  std::filesystem::path target_;
};

// Writes a text/binary file through PendingOutput: body() writes to the stream; a stream error
// (e.g. a full disk) becomes a FileError naming the cause.
void write_file_atomically(const std::filesystem::path& target, bool force,
                           const std::function<void(std::ostream&)>& body,
                           const std::vector<std::filesystem::path>& inputs = {});

// The same into an output under construction, without committing it (for OutputSet members).
void write_file_atomically_into(PendingOutput& out, const std::function<void(std::ostream&)>& body);

// The name a user knows for a file: the final target for one of our temporaries
// ("dir/.run.csv.nt-tmp-host-12-0" -> "dir/run.csv"), the path itself otherwise. Messages use it.
std::filesystem::path output_name(const std::filesystem::path& p);

// Completes the OutputSet commits in `dir` that a killed run of this host left half done (rolled
// forward from their journal), then removes the temporaries killed runs left. Best effort: a
// directory that cannot be read or written is left as it is. Cheap (one directory listing).
void recover_interrupted_outputs(const std::filesystem::path& dir);

// "No space left on device" style text for the current errno (never "Success").
std::string errno_text(int err);

}  // namespace nt
