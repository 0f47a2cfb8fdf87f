// Text files opened by path are read length by length (TextDataset): every value it gives equals,
// bit for bit, what the in-memory parser (read_text) gives, and bad files fail with its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/synth.hpp"
#include "nt/text_format.hpp"
#include "test_util.hpp"

using namespace nt;
namespace fs = std::filesystem;
using namespace std::string_literals;

namespace {

// Bitwise, so that NaN cells compare equal to NaN cells.
bool same(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::unique_ptr<MemoryDataset> in_memory(const fs::path& p) {
  std::ifstream in(p);
  return read_text(in, p);
}

void write_file(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

// The text of `d` as write_text writes it, then `edit`ed (lines removed, line ends changed).
std::string text_of(const Dataset& d) {
  std::ostringstream out;
  write_text(out, d);
  return out.str();
}
std::string without_line(std::string s, const std::string& line) {
  const auto at = s.find(line + "\n");
  if (at != std::string::npos) s.erase(at, line.size() + 1);
  return s;
}

// A synthetic run of 9 ranks and 4 lengths, some cells missing (NaN).
std::unique_ptr<MemoryDataset> synthetic(Mode mode) {
  auto r = synthesize({.nodes = 3, .ranks_per_node = 3, .mode = mode, .lengths = {0, 1024, 4096, 65536}});
  auto d = std::move(r.stats.at(Statistic::median));
  d->at(0).at(1, 2) = std::numeric_limits<double>::quiet_NaN();
  d->at(2).at(8, 0) = std::numeric_limits<double>::quiet_NaN();
  d->at(3).at(4, 4) = std::numeric_limits<double>::quiet_NaN();
  return d;
}

// Everything the path-opened dataset gives equals the in-memory parser's result.
void expect_same_as_read_text(const fs::path& p, std::size_t max_marks = TextDataset::kMaxMarks) {
  SCOPED_TRACE(p.filename().string());
  const auto mem = in_memory(p);
  const auto opened = open_dataset(p);
  ASSERT_NE(dynamic_cast<const TextDataset*>(opened.get()), nullptr) << "open_dataset did not read it lazily";
  const TextDataset lazy_small(p, max_marks);
  if (max_marks < mem->count() * static_cast<std::size_t>(mem->ranks())) {
    EXPECT_GT(lazy_small.stride(), 1u);
  }
  for (const Dataset* d : {static_cast<const Dataset*>(opened.get()), static_cast<const Dataset*>(&lazy_small)}) {
    EXPECT_EQ(d->format(), "text");
    EXPECT_EQ(d->source(), p);
    EXPECT_EQ(d->params(), mem->params());
    EXPECT_EQ(d->meta().format_version, mem->meta().format_version);
    EXPECT_EQ(d->meta().hosts, mem->meta().hosts);
    ASSERT_EQ(d->lengths(), mem->lengths());
    const int P = d->ranks();
    for (std::size_t k = 0; k < d->count(); ++k) {
      EXPECT_TRUE(same(d->matrix(k).values(), mem->at(k).values())) << "matrix " << k;
      for (int r0 = 0; r0 <= P; ++r0)
        for (int r1 = r0; r1 <= P; ++r1)
          EXPECT_TRUE(same(d->rows(k, r0, r1), mem->rows(k, r0, r1))) << "rows " << r0 << ".." << r1;
      for (int s = 0; s < P; ++s)
        for (int r = 0; r < P; ++r) EXPECT_TRUE(same(d->value(s, r, k), mem->value(s, r, k)));
      std::vector<double> a(6), b(6);
      d->block(k, 2, 3, 5, 2, a.data());
      mem->block(k, 2, 3, 5, 2, b.data());
      EXPECT_TRUE(same(a, b)) << "block";
    }
    for (int r = 0; r < P; ++r) {
      for (std::size_t k0 = 0; k0 <= d->count(); ++k0)
        for (std::size_t k1 = k0; k1 <= d->count(); ++k1) {
          EXPECT_TRUE(same(d->row(r, k0, k1), mem->row(r, k0, k1)));
          EXPECT_TRUE(same(d->column(r, k0, k1), mem->column(r, k0, k1)));
        }
      EXPECT_TRUE(same(d->pair(r, (r + 3) % P), mem->pair(r, (r + 3) % P)));
    }
  }
}

}  // namespace

TEST(TextDataset, OursWithHostsHeaderAndNanCells) {
  const auto dir = test::scratch_dir();
  const auto d = synthetic(Mode::one_to_one);
  write_text(dir / "ours.txt", *d, false);
  EXPECT_EQ(in_memory(dir / "ours.txt")->meta().hosts.size(), 9u);
  EXPECT_TRUE(std::isnan(open_dataset(dir / "ours.txt")->value(1, 2, 0)));
  expect_same_as_read_text(dir / "ours.txt");
  expect_same_as_read_text(dir / "ours.txt", 4);  // a recorded row every 8 or 16: lines skipped
}

TEST(TextDataset, OriginalFilesTransposedOrNot) {
  const auto dir = test::scratch_dir();
  // Without the orientation line a one_to_one file's rows are receivers, a put file's senders.
  write_file(dir / "legacy_one_to_one.txt", without_line(text_of(*synthetic(Mode::one_to_one)), "orientation \"x=sender\""));
  write_file(dir / "legacy_put.txt", without_line(text_of(*synthetic(Mode::put)), "orientation \"x=sender\""));
  const auto t = open_dataset(dir / "legacy_one_to_one.txt");
  const auto direct = synthetic(Mode::one_to_one);
  EXPECT_TRUE(same(t->value(3, 7, 1), direct->value(7, 3, 1)));
  expect_same_as_read_text(dir / "legacy_one_to_one.txt");
  expect_same_as_read_text(dir / "legacy_one_to_one.txt", 3);
  expect_same_as_read_text(dir / "legacy_put.txt", 5);
}

TEST(TextDataset, HostsFileBesideBlankLinesAndCrlf) {
  const auto dir = test::scratch_dir();
  const auto d = synthetic(Mode::one_to_one);
  std::string s = without_line(text_of(*d), "hosts:");
  for (const auto& h : d->meta().hosts) s = without_line(s, h);
  std::string crlf;
  for (char c : s) {
    if (c == '\n') crlf += "\r\n";
    else crlf += c;
  }
  // Blank and white lines between rows are not rows.
  for (std::size_t at = crlf.find("Message length"); at != std::string::npos; at = crlf.find("Message length", at + 20))
    crlf.insert(crlf.find('\n', at) + 1, "\r\n  \t\r\n");
  write_file(dir / "run_median.txt", crlf + "\n\n");
  write_hosts(dir / "run_hosts.txt", d->meta().hosts, false);
  EXPECT_EQ(open_dataset(dir / "run_median.txt")->meta().hosts, d->meta().hosts);
  expect_same_as_read_text(dir / "run_median.txt");
  expect_same_as_read_text(dir / "run_median.txt", 2);
}

TEST(TextDataset, BadFilesFailAsReadTextDoes) {
  const auto dir = test::scratch_dir();
  const std::string head = "processors 2\ntest type \"one_to_one\"\norientation \"x=sender\"\n";
  const std::vector<std::string> bad = {
      head + "Message length 0\n1\t2\n3\n",                          // a short row
      head + "Message length 0\n1\t2\n3\t4\n5\nMessage length 8\n",  // values after the matrix
      head + "Message length 0\n1\t2\n",                             // ends inside the matrix
      head + "Message length 0\n1\t2\t3\n3\t4\n",                    // more than P values
      head + "Message length 0\n1\t2\n3\tx4\n",                      // not a number
      head + "Message length 0\n1\t2\n3\t1e400\n",                   // out of range
      head + "Message length 8\n1\t2\n3\t4\nMessage length 8\n1\t2\n3\t4\n",  // lengths not increasing
      head + "Message length -8\n1\t2\n3\t4\n",                      // negative length
      head + "Message length x\n1\t2\n3\t4\n",
      head + "Mesage length 0\n1\t2\n3\t4\n",
      head + "hosts:\nh1\nMessage length 0\n1\t2\n3\t4\n",           // hosts for 1 of 2 ranks
      head + "Message length 0\n1\t2\n3\t4\0\n"s,                      // a NUL byte
      "processors 2\ntest type \"warp_drive\"\n",
      "processors 2\ndata type \"best\"\n",
      "processors 2\nspeed of light 3\n",
      "processors 0\nMessage length 0\n",
      "processors 99999999999\n",
      "processors 2 ranks\n",
      "processors -4\n",
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    const auto p = dir / ("bad" + std::to_string(i) + ".txt");
    write_file(p, bad[i]);
    std::string expected;
    try {
      in_memory(p);
    } catch (const FileError& e) {
      expected = e.what();
    }
    ASSERT_FALSE(expected.empty()) << "read_text accepted case " << i;
    for (int via_open = 0; via_open < 2; ++via_open) {
      try {
        if (via_open)
          open_dataset(p);
        else
          TextDataset{p};
        ADD_FAILURE() << "case " << i << " accepted";
      } catch (const FileError& e) {
        EXPECT_EQ(std::string(e.what()), expected) << "case " << i;
      }
    }
  }
  // A file without a processors line is not a text file to open_dataset (as before); the text
  // reader names what is missing.
  write_file(dir / "noprocs.txt", "test type \"one_to_one\"\nMessage length 0\n1\n");
  EXPECT_THROW(open_dataset(dir / "noprocs.txt"), FileError);
  try {
    TextDataset t(dir / "noprocs.txt");
    ADD_FAILURE();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("no valid 'processors N' header line"), std::string::npos) << e.what();
  }
}

TEST(TextDataset, FileCutAfterOpeningIsAFileError) {
  const auto dir = test::scratch_dir();
  write_text(dir / "cut.txt", *synthetic(Mode::one_to_one), false);
  const auto d = open_dataset(dir / "cut.txt");
  const auto size = fs::file_size(dir / "cut.txt");
  fs::resize_file(dir / "cut.txt", size / 2);
  EXPECT_NO_THROW(d->matrix(0));
  EXPECT_THROW(d->matrix(3), FileError);
}
