#include "nt/text_format.hpp"

#include "nt/output.hpp"

#include <array>
#include <charconv>
#include <climits>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/result_set.hpp"

namespace fs = std::filesystem;

namespace nt {
namespace {

// Our files carry this line (the original's do not): their rows are senders. Files without it
// are the original's, whose rows are the measuring rank, and are mapped like legacy NetCDF files.
constexpr std::string_view kOrientationLine = "orientation \"x=sender\"";

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  return s.substr(b);
}

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

// A token of the input for a message: at most 40 bytes.
std::string shown(std::string_view s) { return s.size() > 40 ? std::string(s.substr(0, 40)) + "..." : std::string(s); }

std::string quoted(const std::string& rest) {
  const auto a = rest.find('"'), b = rest.rfind('"');
  if (a == std::string::npos || b == a) return trim(rest);
  return rest.substr(a + 1, b - a - 1);
}

class Parser {
 public:
  Parser(std::istream& in, fs::path name) : in_(in), name_(std::move(name)) {}

  // The longest line read: a row of a 1,000,000-rank matrix fits; a file without line breaks
  // does not make us allocate its whole size.
  static constexpr std::size_t kMaxLine = std::size_t{64} << 20;

  bool next(std::string& line) {
    while (read_line(line)) {
      ++lineno_;
      if (line.find('\0') != std::string::npos) fail("contains a NUL byte: not a text result file");
      line = trim(line);
      if (!line.empty()) return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw FileError(name_, "line " + std::to_string(lineno_) + ": " + what);
  }
  // A whole-token integer that fits the file's 32-bit fields.
  int integer(const std::string& s, const char* what) const {
    long long v = 0;
    const auto* b = s.data();
    const auto* e = s.data() + s.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && p == e && (v < INT_MIN || v > INT_MAX)))
      fail(std::string(what) + " '" + shown(s) + "' is out of range");
    if (ec != std::errc() || p != e) fail(std::string("expected an integer for ") + what + ", got '" + shown(s) + "'");
    return static_cast<int>(v);
  }
  // A whole-token number: the shortest or 17-digit representation reads back to the same double;
  // nan (missing) and inf are accepted, a value beyond the double range (1e400) is not.
  double real(std::string_view s) const {
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) fail("number '" + shown(s) + "' is out of range");
    if (ec != std::errc() || p != s.data() + s.size()) fail("expected a number, got '" + shown(s) + "'");
    return v;
  }
  int lineno() const { return lineno_; }

 private:
  bool read_line(std::string& line) {
    line.clear();
    if (!in_) return false;
    std::array<char, 1 << 16> buf;
    while (true) {
      in_.get(buf.data(), static_cast<std::streamsize>(buf.size()), '\n');
      const auto got = static_cast<std::size_t>(in_.gcount());
      line.append(buf.data(), got);
      if (line.size() > kMaxLine) fail("a line longer than 64 MiB: not a text result file");
      if (in_.eof()) return !line.empty();
      if (in_.fail()) {  // an empty line, or a chunk that ended exactly at the newline
        in_.clear();
      }
      if (in_.peek() == '\n') {
        in_.get();
        return true;
      }
      if (in_.eof() || in_.peek() == std::char_traits<char>::eof()) return true;
    }
  }
  std::istream& in_;
  fs::path name_;
  int lineno_ = 0;
};

}  // namespace

std::unique_ptr<MemoryDataset> read_text(std::istream& in, const fs::path& name) {
  Parser ps(in, name);
  FileInfo info;
  TestParameters& p = info.params;
  info.meta.format_version = 0;
  bool ours = false, have_procs = false;
  std::string line;
  // Header, up to the first "Message length".
  bool more = ps.next(line);
  if (!more) throw FileError(name, "empty file");
  while (more && !starts_with(line, "Message length")) {
    bool matched = false;
    for (const auto& f : kIntParameters) {
      if (const std::string_view key = f.text; starts_with(line, key)) {
        p.*(f.field) = ps.integer(trim(line.substr(key.size())), f.text);
        if (f.field == &TestParameters::proc_num) have_procs = true;
        matched = true;
        break;
      }
    }
    if (matched) {
      // an integer field, read above
    } else if (starts_with(line, "test type")) {
      const auto m = mode_from_name(quoted(line.substr(9)));
      if (!m) ps.fail("unknown test type in '" + line + "'");
      p.mode = *m;
    } else if (starts_with(line, "data type")) {
      const auto s = statistic_from_name(quoted(line.substr(9)));
      if (!s) ps.fail("unknown data type in '" + line + "'");
      p.statistic = *s;
    } else if (line == kOrientationLine) {
      ours = true;
      info.meta.format_version = kFormatVersion;
    } else if (line == "hosts:") {
      while ((more = ps.next(line)) && !starts_with(line, "Message length")) info.meta.hosts.push_back(line);
      continue;
    } else {
      ps.fail("unexpected header line '" + shown(line) + "'");
    }
    more = ps.next(line);
  }
  if (!have_procs || p.proc_num <= 0) throw FileError(name, "no valid 'processors N' header line: not a text result file");
  check_declared_size(name, p.proc_num, 0);
  if (!info.meta.hosts.empty() && info.meta.hosts.size() != static_cast<std::size_t>(p.proc_num))
    throw FileError(name, std::to_string(info.meta.hosts.size()) + " hosts listed for " + std::to_string(p.proc_num) +
                              " processors");
  const bool transpose = !ours && legacy_is_transposed(p.mode);
  auto ds = std::make_unique<MemoryDataset>(info, "text", name);
  const int P = p.proc_num;
  while (more) {
    if (!starts_with(line, "Message length")) ps.fail("expected 'Message length', got '" + shown(line) + "'");
    const int len = ps.integer(trim(line.substr(14)), "message length");
    // The values grow as rows are read: a small file that declares many processors fails at its
    // first missing row instead of first allocating a P x P matrix (up to the memory limit).
    std::vector<double> values;
    for (int i = 0; i < P; ++i) {
      if (!ps.next(line)) ps.fail("file ends inside the matrix of length " + std::to_string(len));
      int j = 0;
      std::size_t pos = 0;
      while (pos < line.size()) {
        std::size_t end = line.find_first_of("\t ", pos);
        if (end == std::string::npos) end = line.size();
        if (end > pos) {
          if (j >= P) ps.fail("more than " + std::to_string(P) + " values in a row");
          values.push_back(ps.real(std::string_view(line).substr(pos, end - pos)));
          ++j;
        }
        pos = end + 1;
      }
      if (j != P) ps.fail(std::to_string(j) + " values in a row of a " + std::to_string(P) + "-rank matrix");
    }
    Matrix m(P, std::move(values));
    ds->append(len, transpose ? m.transposed() : std::move(m));
    more = ps.next(line);
  }
  check_lengths(name, ds->lengths());
  if (info.meta.hosts.empty())
    if (auto h = ResultSet::of(name).find_hosts()) {
      auto hosts = read_hosts(*h);
      if (hosts.size() == static_cast<std::size_t>(P)) ds->mutable_info().meta.hosts = std::move(hosts);
    }
  return ds;
}

std::unique_ptr<MemoryDataset> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw FileError(path, "cannot open");
  return read_text(in, path);
}

void write_text(std::ostream& out, const Dataset& d) {
  const TestParameters& p = d.params();
  for (const auto& f : kIntParameters) {
    out << f.text << ' ' << p.*(f.field) << '\n';
    if (f.field == &TestParameters::proc_num)  // the types follow the processors line
      out << "test type \"" << mode_name(p.mode) << "\"\n"
          << "data type \"" << statistic_name(p.statistic) << "\"\n";
  }
  out << kOrientationLine << '\n' << "hosts:\n";
  for (const auto& h : d.meta().hosts) out << h << '\n';
  std::string buf;
  for (std::size_t k = 0; k < d.count(); ++k) {
    out << "Message length " << d.lengths()[k] << '\n';
    const Matrix m = d.matrix(k);
    for (int i = 0; i < m.ranks(); ++i) {
      buf.clear();
      for (int j = 0; j < m.ranks(); ++j) {
        if (j) buf += '\t';
        // Shortest representation that reads back to the same double.
        fmt::format_to(std::back_inserter(buf), "{}", m.at(i, j));
      }
      buf += '\n';
      out << buf;
    }
  }
}

void write_text(const fs::path& path, const Dataset& d, bool overwrite) {
  write_file_atomically(path, overwrite, [&](std::ostream& out) { write_text(out, d); });
}

bool looks_like_text(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) continue;
    return starts_with(line, "processors ");
  }
  return false;
}

}  // namespace nt
