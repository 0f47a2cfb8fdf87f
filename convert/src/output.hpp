// Outputs that appear under their final name only when complete.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace nt::convert::detail {

namespace fs = std::filesystem;

// Reserves `final_path` (refusing an existing file unless force) and hands out a temporary path
// beside it; commit() renames the temporary into place, the destructor removes it otherwise.
class PendingFile {
 public:
  PendingFile(fs::path final_path, bool force);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  PendingFile(PendingFile&&) noexcept;
  PendingFile& operator=(PendingFile&&) = delete;

  const fs::path& temp() const noexcept { return temp_; }
  const fs::path& target() const noexcept { return final_; }
  void commit();

 private:
  fs::path final_, temp_;
  bool done_ = false;
};

// A text output stream on a PendingFile, with a large buffer; close() checks every write.
class TextOutput {
 public:
  TextOutput(const fs::path& final_path, bool force);
  std::ostream& stream() { return out_; }
  void commit();  // flush, check, close, rename

 private:
  PendingFile file_;
  std::vector<char> buffer_;
  std::ofstream out_;
};

// Throws FileError for the paths that exist (unless force) before any of them is written.
void check_all_writable(const std::vector<fs::path>& paths, bool force);

}  // namespace nt::convert::detail
