#include "nt/text_format.hpp"

#include "nt/output.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstring>
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

// In place: a row of a big matrix is not copied.
void trim_in_place(std::string& s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  s.erase(0, b);
}

std::string trim(std::string s) {
  trim_in_place(s);
  return s;
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
  // `lineno` and `offset`: where `in` stands in the file (a reader that seeks to a recorded row).
  Parser(std::istream& in, fs::path name, int lineno = 0, std::uint64_t offset = 0)
      : in_(in), name_(std::move(name)), lineno_(lineno), offset_(offset) {}

  // The longest line read: a row of a 1,000,000-rank matrix fits; a file without line breaks
  // does not make us allocate its whole size.
  static constexpr std::size_t kMaxLine = std::size_t{64} << 20;

  bool next(std::string& line) {
    while (read_line(line)) {
      ++lineno_;
      if (line.find('\0') != std::string::npos) fail("contains a NUL byte: not a text result file");
      trim_in_place(line);
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
  // Byte offset in the file of the next line next() reads.
  std::uint64_t offset() const { return offset_; }

 private:
  // The next line without its '\n' (the last one may lack it). Reads the stream's buffer in
  // blocks and finds line ends with memchr: istream::get takes a character at a time.
  bool read_line(std::string& line) {
    line.clear();
    if (!in_) return false;
    while (true) {
      if (pos_ == end_) {
        pos_ = 0;
        end_ = static_cast<std::size_t>(std::max<std::streamsize>(
            0, in_.rdbuf()->sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()))));
        if (end_ == 0) return !line.empty();
      }
      const char* from = buf_.data() + pos_;
      const auto* nl = static_cast<const char*>(std::memchr(from, '\n', end_ - pos_));
      const auto got = nl ? static_cast<std::size_t>(nl - from) : end_ - pos_;
      line.append(from, got);
      pos_ += got;
      offset_ += got;
      if (line.size() > kMaxLine) fail("a line longer than 64 MiB: not a text result file");
      if (nl) {
        ++pos_;
        ++offset_;
        return true;
      }
    }
  }
  std::istream& in_;
  fs::path name_;
  int lineno_ = 0;
  std::uint64_t offset_ = 0;
  std::vector<char> buf_ = std::vector<char>(std::size_t{1} << 16);
  std::size_t pos_ = 0, end_ = 0;  // unread bytes of buf_
};

// What the header says, and how the matrices after it are stored.
struct Header {
  FileInfo info;
  bool transposed = false;  // an original's file of a mode whose rows are receivers
  bool more = false;
};

// One header line that is not "hosts:" or a matrix; false when it is none the format knows.
bool header_field(const Parser& ps, const std::string& line, FileInfo& info, bool& have_procs) {
  TestParameters& p = info.params;
  for (const auto& f : kIntParameters) {
    if (const std::string_view key = f.text; starts_with(line, key)) {
      p.*(f.field) = ps.integer(trim(line.substr(key.size())), f.text);
      if (f.field == &TestParameters::proc_num) have_procs = true;
      return true;
    }
  }
  if (starts_with(line, "test type")) {
    const auto m = mode_from_name(quoted(line.substr(9)));
    if (!m) ps.fail("unknown test type in '" + line + "'");
    p.mode = *m;
  } else if (starts_with(line, "data type")) {
    const auto s = statistic_from_name(quoted(line.substr(9)));
    if (!s) ps.fail("unknown data type in '" + line + "'");
    p.statistic = *s;
  } else if (line == kOrientationLine) {
    info.meta.format_version = kFormatVersion;
  } else {
    return false;
  }
  return true;
}

// The header, up to the first "Message length" line, which is left in `line` (`more` false: the
// file has no matrix). Checks the processors line and the hosts listed. read_text and TextDataset
// both start here.
Header parse_header(Parser& ps, const fs::path& name, std::string& line) {
  Header h;
  h.info.meta.format_version = 0;
  bool have_procs = false;
  h.more = ps.next(line);
  if (!h.more) throw FileError(name, "empty file");
  while (h.more && !starts_with(line, "Message length")) {
    if (line == "hosts:") {
      while ((h.more = ps.next(line)) && !starts_with(line, "Message length")) h.info.meta.hosts.push_back(line);
      continue;
    }
    if (!header_field(ps, line, h.info, have_procs)) ps.fail("unexpected header line '" + shown(line) + "'");
    h.more = ps.next(line);
  }
  const TestParameters& p = h.info.params;
  if (!have_procs || p.proc_num <= 0) throw FileError(name, "no valid 'processors N' header line: not a text result file");
  check_declared_size(name, p.proc_num, 0);
  if (!h.info.meta.hosts.empty() && h.info.meta.hosts.size() != static_cast<std::size_t>(p.proc_num))
    throw FileError(name, std::to_string(h.info.meta.hosts.size()) + " hosts listed for " + std::to_string(p.proc_num) +
                              " processors");
  const bool ours = h.info.meta.format_version == kFormatVersion;
  h.transposed = !ours && legacy_is_transposed(p.mode);
  return h;
}

// One row of a P-rank matrix: every value is counted, values [c0, c1) are read into out[0, c1-c0).
void parse_row(const Parser& ps, std::string_view line, int P, int c0, int c1, double* out) {
  int j = 0;
  std::size_t pos = 0;
  while (pos < line.size()) {
    // A plain loop: find_first_of calls memchr on the two separators for every character.
    std::size_t end = pos;
    while (end < line.size() && line[end] != '\t' && line[end] != ' ') ++end;
    if (end > pos) {
      if (j >= P) ps.fail("more than " + std::to_string(P) + " values in a row");
      if (j >= c0 && j < c1) out[j - c0] = ps.real(line.substr(pos, end - pos));
      ++j;
    }
    pos = end + 1;
  }
  if (j != P) ps.fail(std::to_string(j) + " values in a row of a " + std::to_string(P) + "-rank matrix");
}

// The matrices after the header, each checked whole: v.begin(length), then for each row
// v.row(i, offset, line) (where its line starts, and the line number before it) returns where
// its P values go, then v.end(). Lengths are checked (strictly increasing) by the caller.
template <class Visitor>
void scan_matrices(Parser& ps, std::string& line, bool more, int P, Visitor& v) {
  while (more) {
    if (!starts_with(line, "Message length")) ps.fail("expected 'Message length', got '" + shown(line) + "'");
    const int len = ps.integer(trim(line.substr(14)), "message length");
    v.begin(len);
    for (int i = 0; i < P; ++i) {
      double* out = v.row(i, ps.offset(), ps.lineno());
      if (!ps.next(line)) ps.fail("file ends inside the matrix of length " + std::to_string(len));
      parse_row(ps, line, P, 0, P, out);
    }
    v.end();
    more = ps.next(line);
  }
}

// Hosts of a file whose header lists none: the hosts file beside it, when it has one per rank.
void hosts_beside(FileInfo& info, const fs::path& name) {
  if (!info.meta.hosts.empty()) return;
  if (auto h = ResultSet::of(name).find_hosts()) {
    auto hosts = read_hosts(*h);
    if (hosts.size() == static_cast<std::size_t>(info.params.proc_num)) info.meta.hosts = std::move(hosts);
  }
}

}  // namespace

std::unique_ptr<MemoryDataset> read_text(std::istream& in, const fs::path& name) {
  Parser ps(in, name);
  std::string line;
  const Header h = parse_header(ps, name, line);
  auto ds = std::make_unique<MemoryDataset>(h.info, "text", name);
  const int P = h.info.params.proc_num;
  const auto uP = static_cast<std::size_t>(P);
  // The values grow as rows are read: a small file that declares many processors fails at its
  // first missing row instead of first allocating a P x P matrix (up to the memory limit).
  struct Collect {
    MemoryDataset& ds;
    std::size_t P;
    bool transposed;
    int len = 0;
    std::vector<double> values;
    void begin(int length) { len = length; }
    double* row(int i, std::uint64_t, int) {
      values.resize((static_cast<std::size_t>(i) + 1) * P);
      return values.data() + static_cast<std::size_t>(i) * P;
    }
    void end() {
      Matrix m(static_cast<int>(P), std::move(values));
      values = {};
      ds.append(len, transposed ? m.transposed() : std::move(m));
    }
  } collect{*ds, uP, h.transposed, 0, {}};
  scan_matrices(ps, line, h.more, P, collect);
  check_lengths(name, ds->lengths());
  hosts_beside(ds->mutable_info(), name);
  return ds;
}

std::unique_ptr<MemoryDataset> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw FileError(path, "cannot open");
  return read_text(in, path);
}

// ---- TextDataset -----------------------------------------------------------------------------

TextDataset::TextDataset(const fs::path& path, std::size_t max_marks)
    : max_marks_(std::max<std::size_t>(max_marks, 2)), in_(path, std::ios::binary) {
  if (!in_) throw FileError(path, "cannot open");
  format_ = "text";
  source_ = path;
  Parser ps(in_, path);
  std::string line;
  const Header h = parse_header(ps, path, line);
  info_ = h.info;
  transposed_ = h.transposed;
  const int P = h.info.params.proc_num;
  // One pass over every value (each parsed into one row's buffer, then dropped): only where
  // each matrix and every stride_-th row start are kept.
  struct Index {
    TextDataset& d;
    std::uint64_t P;
    std::vector<double> buf;
    std::uint64_t rows_seen = 0;
    void begin(int length) { d.lengths_.push_back(length); }
    double* row(int i, std::uint64_t offset, int line) {
      if (buf.empty()) buf.resize(P);
      if (i == 0) d.starts_.push_back({offset, line});
      if (rows_seen % d.stride_ == 0 && d.marks_.size() >= d.max_marks_) {
        for (std::size_t m = 0; 2 * m < d.marks_.size(); ++m) d.marks_[m] = d.marks_[2 * m];
        d.marks_.resize((d.marks_.size() + 1) / 2);
        d.stride_ *= 2;
      }
      if (rows_seen++ % d.stride_ == 0) d.marks_.push_back({offset, line});
      return buf.data();
    }
    void end() {}
  } index{*this, static_cast<std::uint64_t>(P), {}, 0};
  scan_matrices(ps, line, h.more, P, index);
  check_lengths(path, lengths_);
  hosts_beside(info_, path);
}

void TextDataset::read_rows(std::size_t k, int f0, int f1, int c0, int c1,
                            const std::function<void(int, const double*)>& fn) const {
  const auto P = static_cast<std::uint64_t>(ranks());
  const std::uint64_t g = k * P + static_cast<std::uint64_t>(f0), m = g / stride_, gm = m * stride_;
  // The nearest recorded row at or before f0 within matrix k, then the lines in between.
  const bool mark = gm >= k * P;
  const Mark from = mark ? marks_[m] : starts_[k];
  std::uint64_t skip = mark ? g - gm : static_cast<std::uint64_t>(f0);
  const std::lock_guard lock(mutex_);
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(from.offset));
  Parser ps(in_, source_, from.line, from.offset);
  std::string line;
  std::vector<double> buf(static_cast<std::size_t>(c1 - c0));
  const auto ended = [&] {
    ps.fail("file ends inside the matrix of length " + std::to_string(lengths_[k]) + " (changed since it was opened?)");
  };
  for (; skip > 0; --skip)
    if (!ps.next(line)) ended();
  for (int i = f0; i < f1; ++i) {
    if (!ps.next(line)) ended();
    parse_row(ps, line, ranks(), c0, c1, buf.data());
    fn(i, buf.data());
  }
}

void TextDataset::block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const {
  if (!check_block(k, x0, nx, y0, ny)) return;
  const auto uny = static_cast<std::size_t>(ny);
  if (!transposed_) {  // file rows are senders
    read_rows(k, x0, x0 + nx, y0, y0 + ny, [&](int i, const double* v) {
      std::copy(v, v + ny, out + static_cast<std::size_t>(i - x0) * uny);
    });
  } else {  // file rows are receivers: sender x is column x of the file
    read_rows(k, y0, y0 + ny, x0, x0 + nx, [&](int i, const double* v) {
      for (int x = 0; x < nx; ++x) out[static_cast<std::size_t>(x) * uny + static_cast<std::size_t>(i - y0)] = v[x];
    });
  }
}

Matrix TextDataset::matrix(std::size_t k) const {
  check_index(k);
  Matrix m(ranks());
  block(k, 0, ranks(), 0, ranks(), m.data());
  return m;
}

std::vector<double> TextDataset::rows(std::size_t k, int r0, int r1) const {
  check_rows(k, r0, r1);
  std::vector<double> out(static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(ranks()));
  block(k, r0, r1 - r0, 0, ranks(), out.data());
  return out;
}

std::vector<double> TextDataset::line(int rank, bool as_sender, std::size_t k0, std::size_t k1) const {
  check_rank(rank);
  check_window(k0, k1);
  const auto P = static_cast<std::size_t>(ranks());
  std::vector<double> out((k1 - k0) * P);
  for (std::size_t k = k0; k < k1; ++k) {
    double* to = out.data() + (k - k0) * P;
    if (as_sender)
      block(k, rank, 1, 0, ranks(), to);
    else
      block(k, 0, ranks(), rank, 1, to);
  }
  return out;
}

std::vector<double> TextDataset::row(int sender, std::size_t k0, std::size_t k1) const {
  return line(sender, true, k0, k1);
}

std::vector<double> TextDataset::column(int receiver, std::size_t k0, std::size_t k1) const {
  return line(receiver, false, k0, k1);
}

double TextDataset::value(int sender, int receiver, std::size_t k) const {
  check_pair(sender, receiver);
  double v = 0;
  block(k, sender, 1, receiver, 1, &v);
  return v;
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
