#include "nt/dataset.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>

#include "nt/error.hpp"

namespace nt {

std::ptrdiff_t Dataset::index_of_length(std::int64_t length) const {
  const auto it = std::find(lengths_.begin(), lengths_.end(), length);
  return it == lengths_.end() ? -1 : it - lengths_.begin();
}

std::uint64_t memory_limit() {
  if (const char* e = std::getenv("NT_MEMORY_LIMIT")) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    double scale = 1;
    if (end && *end) {
      switch (*end) {
        case 'k': case 'K': scale = 1024.0; break;
        case 'm': case 'M': scale = 1024.0 * 1024; break;
        case 'g': case 'G': scale = 1024.0 * 1024 * 1024; break;
        default: scale = -1;
      }
    }
    if (end == e || !(v > 0) || scale < 0 || !std::isfinite(v * scale))
      throw UsageError(std::string("NT_MEMORY_LIMIT='") + e + "' is not a size (e.g. 4G)");
    return static_cast<std::uint64_t>(v * scale);
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::uint64_t{4} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2;
}

namespace {
// A number from a one-line kernel file ("max" or unreadable: none).
std::uint64_t read_limit_file(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return 0;
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(word, &used);
    return used == word.size() ? v : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// The memory limit of this process's cgroup (v2 unified line "0::/path", or the v1 "memory"
// controller), 0 for none. A v1 "no limit" is a huge number, which loses to physical memory.
std::pair<std::uint64_t, std::string> cgroup_limit() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::pair<std::uint64_t, std::string> best{0, {}};
  while (std::getline(in, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::string file;
    if (line.compare(0, a, "0") == 0 && controllers.empty())
      file = "/sys/fs/cgroup" + (path == "/" ? std::string() : path) + "/memory.max";
    else if (controllers == "memory")
      file = "/sys/fs/cgroup/memory" + (path == "/" ? std::string() : path) + "/memory.limit_in_bytes";
    else
      continue;
    std::uint64_t v = read_limit_file(file);
    if (v == 0 && controllers.empty()) v = read_limit_file("/sys/fs/cgroup/memory.max");  // namespaced root
    if (v != 0 && (best.first == 0 || v < best.first)) best = {v, file};
  }
  return best;
}

// Bytes of address space this process has mapped now (first field of /proc/self/statm).
std::uint64_t mapped_now() {
  std::ifstream in("/proc/self/statm");
  unsigned long long pages = 0;
  if (!(in >> pages)) return 0;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
}

std::string gb(std::uint64_t bytes) { return fmt::format("{:.3g} GB", static_cast<double>(bytes) / 1e9); }
}  // namespace

MemoryLimit effective_memory_limit() {
  MemoryLimit best;
  const auto consider = [&](std::uint64_t bytes, std::string source) {
    if (bytes != 0 && (best.bytes == 0 || bytes < best.bytes)) best = {bytes, std::move(source)};
  };
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    consider(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page), "this machine's physical memory");
  if (const auto [bytes, file] = cgroup_limit(); bytes != 0)
    consider(bytes, fmt::format("the cgroup limit of {} ({})", gb(bytes), file));
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t limit = rl.rlim_cur, used = mapped_now();
    consider(limit > used ? limit - used : 1,
             fmt::format("the address-space limit (ulimit -v {}) of {}, {} already mapped", limit / 1024, gb(limit),
                         gb(used)));
  }
  if (const char* e = std::getenv("NT_MEMORY_LIMIT")) consider(memory_limit(), std::string("NT_MEMORY_LIMIT=") + e);
  return best;
}

void require_memory(std::uint64_t bytes, const std::string& what) {
  const MemoryLimit limit = effective_memory_limit();
  if (limit.bytes == 0 || bytes <= limit.bytes) return;
  throw Error(fmt::format("out of memory: {} needs {}, more than the {} left under {}", what, gb(bytes),
                          gb(limit.bytes), limit.source));
}

void check_declared_size(const std::filesystem::path& file, long long ranks, long long lengths) {
  if (ranks < 1) throw FileError(file, "declares " + std::to_string(ranks) + " ranks");
  if (ranks > std::numeric_limits<int>::max())
    throw FileError(file, "declares " + std::to_string(ranks) + " ranks, more than this suite's files can index");
  if (lengths < 0 || lengths > std::numeric_limits<int>::max())
    throw FileError(file, "declares " + std::to_string(lengths) + " message lengths");
  const long double matrix = 8.0L * static_cast<long double>(ranks) * static_cast<long double>(ranks);
  if (matrix > static_cast<long double>(memory_limit()))
    throw FileError(file, fmt::format("declares {} ranks: one {}x{} matrix needs {:.3g} GB, more than the memory "
                                      "limit of {:.3g} GB (NT_MEMORY_LIMIT changes it)",
                                      ranks, ranks, ranks, static_cast<double>(matrix) / 1e9,
                                      static_cast<double>(memory_limit()) / 1e9));
}

void check_compressed_size(const std::filesystem::path& file, long double declared_bytes) {
  const auto bytes = static_cast<long double>(std::filesystem::file_size(file));
  if (declared_bytes > 1000.0L * bytes + (1 << 20))
    throw FileError(file, fmt::format("declares {:.3g} GB of data in a file of {} bytes: corrupt",
                                      static_cast<double>(declared_bytes) / 1e9, static_cast<long long>(bytes)));
}

void check_lengths(const std::filesystem::path& file, const std::vector<std::int64_t>& lengths) {
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    if (lengths[k] < 0)
      throw FileError(file, fmt::format("message length #{} is negative ({})", k, lengths[k]));
    if (k > 0 && lengths[k] <= lengths[k - 1])
      throw FileError(file, fmt::format("message lengths are not strictly increasing (#{} is {}, #{} is {})", k - 1,
                                        lengths[k - 1], k, lengths[k]));
  }
}

void Dataset::check_index(std::size_t k) const {
  if (k >= lengths_.size())
    throw Error("matrix index " + std::to_string(k) + " out of range: " + source_.string() + " holds " +
                std::to_string(lengths_.size()) + " message lengths");
}

void Dataset::check_rank(int r) const {
  if (r < 0 || r >= ranks())
    throw Error("rank " + std::to_string(r) + " out of range: " + source_.string() + " holds ranks 0.." +
                std::to_string(ranks() - 1));
}

void Dataset::check_window(std::size_t k0, std::size_t k1) const {
  if (k0 > k1 || k1 > lengths_.size())
    throw Error("length window [" + std::to_string(k0) + ", " + std::to_string(k1) + ") out of range: " +
                source_.string() + " holds " + std::to_string(lengths_.size()) + " message lengths");
}

std::vector<double> Dataset::row(int sender, std::size_t k0, std::size_t k1) const {
  check_rank(sender);
  check_window(k0, k1);
  const auto P = static_cast<std::size_t>(ranks());
  std::vector<double> out;
  out.reserve((k1 - k0) * P);
  for (std::size_t k = k0; k < k1; ++k) {
    const Matrix m = matrix(k);
    const auto r = m.row(sender);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::vector<double> Dataset::column(int receiver, std::size_t k0, std::size_t k1) const {
  check_rank(receiver);
  check_window(k0, k1);
  std::vector<double> out;
  out.reserve((k1 - k0) * static_cast<std::size_t>(ranks()));
  for (std::size_t k = k0; k < k1; ++k) {
    const Matrix m = matrix(k);
    for (int i = 0; i < ranks(); ++i) out.push_back(m.at(i, receiver));
  }
  return out;
}

void Dataset::check_rows(std::size_t k, int r0, int r1) const {
  check_index(k);
  if (r0 < 0 || r0 > r1 || r1 > ranks())
    throw Error("rows [" + std::to_string(r0) + ", " + std::to_string(r1) + ") out of range: " + source_.string() +
                " holds ranks 0.." + std::to_string(ranks() - 1));
}

bool Dataset::check_block(std::size_t k, int x0, int nx, int y0, int ny) const {
  check_index(k);
  if (nx <= 0 || ny <= 0) return false;
  check_rank(x0);
  check_rank(x0 + nx - 1);
  check_rank(y0);
  check_rank(y0 + ny - 1);
  return true;
}

std::vector<double> Dataset::rows(std::size_t k, int r0, int r1) const {
  check_rows(k, r0, r1);
  if (r0 == 0 && r1 == ranks()) return std::move(matrix(k).values());
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(ranks()));
  for (int i = r0; i < r1; ++i) {
    const auto r = row(i, k, k + 1);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::vector<double> Dataset::pair(int sender, int receiver) const {
  check_pair(sender, receiver);
  std::vector<double> out;
  out.reserve(count());
  for (std::size_t k = 0; k < count(); ++k) out.push_back(value(sender, receiver, k));
  return out;
}

double Dataset::value(int sender, int receiver, std::size_t k) const {
  check_pair(sender, receiver);
  return matrix(k).at(sender, receiver);
}

// Through rows(): the readers that cannot read a window read only the block's rows (a clustered
// file decoded the whole matrix for every block of senders, P^2 cells per block: the report of a
// 20,000-rank file, read in blocks of 26 rows, was still in its first pass after 15 CPU minutes).
std::optional<Matrix> Dataset::isolated(std::size_t k) const {
  check_index(k);
  return std::nullopt;
}

std::vector<int> Dataset::sample_count(std::size_t k) const {
  check_index(k);
  return {};
}

std::vector<int> Dataset::sample_count_of(int sender, int receiver) const {
  check_pair(sender, receiver);
  return {};
}

std::vector<std::uint8_t> Dataset::sample_flags(std::size_t k) const {
  check_index(k);
  return {};
}

void Dataset::block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const {
  if (!check_block(k, x0, nx, y0, ny)) return;
  const std::vector<double> r = rows(k, x0, x0 + nx);
  const auto P = static_cast<std::size_t>(ranks()), w = static_cast<std::size_t>(ny);
  for (std::size_t x = 0; x < static_cast<std::size_t>(nx); ++x)
    std::copy_n(r.begin() + static_cast<std::ptrdiff_t>(x * P + static_cast<std::size_t>(y0)), w, out + x * w);
}

MemoryDataset::MemoryDataset(FileInfo info, std::string format, std::filesystem::path source) {
  info_ = std::move(info);
  format_ = std::move(format);
  source_ = std::move(source);
}

void MemoryDataset::append(std::int64_t length, Matrix m) {
  if (m.ranks() != ranks())
    throw Error("matrix of " + std::to_string(m.ranks()) + " ranks appended to a dataset of " +
                std::to_string(ranks()));
  lengths_.push_back(length);
  matrices_.push_back(std::move(m));
}

Matrix MemoryDataset::matrix(std::size_t k) const { return at(k); }

std::vector<double> MemoryDataset::rows(std::size_t k, int r0, int r1) const {
  check_rows(k, r0, r1);
  const auto P = static_cast<std::size_t>(ranks());
  const auto& v = matrices_[k].values();
  return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r0) * P),
                             v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r1) * P));
}

double MemoryDataset::value(int sender, int receiver, std::size_t k) const {
  check_pair(sender, receiver);
  return at(k).at(sender, receiver);
}

const Matrix& MemoryDataset::at(std::size_t k) const {
  check_index(k);
  return matrices_[k];
}

Matrix& MemoryDataset::at(std::size_t k) {
  check_index(k);
  return matrices_[k];
}

SweepCompleteness sweep_completeness(const Dataset& d) {
  const auto& p = d.params();
  SweepCompleteness c;
  c.stored = d.count();
  if (p.step_length > 0 && p.end_length >= p.begin_length) {
    const long long span = static_cast<long long>(p.end_length) - p.begin_length;
    const long long planned = d.meta().format_version == 0 ? (span + p.step_length - 1) / p.step_length
                                                           : span / p.step_length + 1;
    c.planned = static_cast<std::size_t>(planned);
    c.cut_short = c.stored < c.planned;
  } else if (p.step_length == 0 && p.end_length > 0) {
    c.cut_short = d.lengths().empty() || d.lengths().back() < p.end_length;
  }
  return c;
}

}  // namespace nt
