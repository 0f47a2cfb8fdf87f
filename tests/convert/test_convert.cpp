// Unit tests of nt_convert: exact round trips, CSV shape and orientation, legacy upgrades,
// NetCDF-4 copies, merging, refusals. Real files in a per-test temporary directory.
#include <gtest/gtest.h>

#include <netcdf.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>

#include "legacy_fixture.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/stats.hpp"
#include "nt/synth.hpp"
#include "nt/text_format.hpp"
#include "nt/units.hpp"
#include "nt/convert/convert.hpp"

namespace fs = std::filesystem;
using namespace nt;
using nt::fixtures::LegacySpec;
using nt::fixtures::legacy_value;
using nt::fixtures::write_legacy_file;

namespace {

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("nt_convert_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path p(const std::string& name) const { return dir_ / name; }

  // A hand-made dataset whose values have all 53 bits in use, plus specials.
  static std::unique_ptr<MemoryDataset> awkward(int ranks = 3) {
    FileInfo info;
    info.params.proc_num = ranks;
    info.params.mode = Mode::all_to_all;
    info.params.statistic = Statistic::median;
    info.params.begin_length = 0;
    info.params.end_length = 200;
    info.params.step_length = 100;
    info.params.num_repeats = 5;
    for (int r = 0; r < ranks; ++r) info.meta.hosts.push_back("host" + std::to_string(r / 2));
    auto d = std::make_unique<MemoryDataset>(info, "memory", "awkward");
    std::uint64_t bits = 0x3EB0C6F7A0B5ED8DULL;  // ~1e-6
    for (int k = 0; k < 3; ++k) {
      Matrix m(ranks);
      for (double& v : m.values()) {
        bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
        // Exponent kept in [1e-9, 1e-3], mantissa random.
        const std::uint64_t mant = bits >> 12;
        const std::uint64_t exp = 0x3E1ULL + ((bits >> 3) % 20);
        v = std::bit_cast<double>((exp << 52) | mant);
      }
      m.at(0, 0) = std::numeric_limits<double>::denorm_min();
      m.at(1, 1) = 0.1 + 0.2;
      d->append(100 * k, std::move(m));
    }
    return d;
  }

  static void expect_bitwise_equal(const Dataset& a, const Dataset& b) {
    ASSERT_EQ(a.ranks(), b.ranks());
    ASSERT_EQ(a.lengths(), b.lengths());
    for (std::size_t k = 0; k < a.count(); ++k) {
      const auto ma = a.matrix(k), mb = b.matrix(k);
      for (std::size_t c = 0; c < ma.values().size(); ++c)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(ma.values()[c]), std::bit_cast<std::uint64_t>(mb.values()[c]))
            << "matrix " << k << " cell " << c << ": " << ma.values()[c] << " vs " << mb.values()[c];
    }
  }

  static std::vector<std::string> lines_of(const fs::path& f) {
    std::ifstream in(f);
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) out.push_back(line);
    return out;
  }

  fs::path dir_;
};

// ---- text -----------------------------------------------------------------------------------

TEST_F(ConvertTest, TextRoundTripIsBitExact) {
  auto d = awkward();
  write_raw(p("src_median.nc"), *d, false);
  convert::to_text(p("src_median.nc"), p("a.txt"), false);
  const auto written = convert::from_text(p("a.txt"), p("back"), false);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0], p("back_median.nc"));
  EXPECT_EQ(written[1], p("back_hosts.txt"));
  auto back = open_dataset(p("back_median.nc"));
  EXPECT_EQ(back->format(), "raw");
  EXPECT_EQ(back->params(), d->params());
  EXPECT_EQ(back->meta().hosts, d->meta().hosts);
  EXPECT_EQ(read_hosts(p("back_hosts.txt")), d->meta().hosts);
  expect_bitwise_equal(*d, *back);
  // and the text written again is byte-identical
  convert::to_text(p("back_median.nc"), p("b.txt"), false);
  EXPECT_EQ(lines_of(p("a.txt")), lines_of(p("b.txt")));
}

TEST_F(ConvertTest, FromTextRefusesNetcdfInput) {
  auto d = awkward();
  write_raw(p("r_median.nc"), *d, false);
  EXPECT_THROW(convert::from_text(p("r_median.nc"), p("x"), false), UsageError);
  EXPECT_FALSE(fs::exists(p("x_median.nc")));
}

// ---- CSV ------------------------------------------------------------------------------------

TEST_F(ConvertTest, CsvHasOneRowPerCellAndExactValues) {
  auto d = awkward(4);
  write_raw(p("r_median.nc"), *d, false);
  convert::to_csv(p("r_median.nc"), p("r.csv"), false);
  const auto lines = lines_of(p("r.csv"));
  ASSERT_EQ(lines.size(), 4u * 4u * 3u + 1u);
  EXPECT_EQ(lines[0], "message_length,sender,receiver,value");
  std::size_t row = 1;
  for (std::size_t k = 0; k < 3; ++k)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j, ++row) {
        std::istringstream s(lines[row]);
        std::string len, snd, rcv, val;
        std::getline(s, len, ',');
        std::getline(s, snd, ',');
        std::getline(s, rcv, ',');
        std::getline(s, val);
        EXPECT_EQ(std::stoll(len), d->lengths()[k]);
        EXPECT_EQ(std::stoi(snd), i);
        EXPECT_EQ(std::stoi(rcv), j);
        const double v = std::strtod(val.c_str(), nullptr);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(v), std::bit_cast<std::uint64_t>(d->at(k).at(i, j))) << lines[row];
      }
}

TEST_F(ConvertTest, CsvOfLegacyFileIsInOurOrientation) {
  LegacySpec s;  // one_to_one, rows are receivers
  write_legacy_file(p("old.nc"), s);
  convert::to_csv(p("old.nc"), p("old.csv"), false);
  const auto lines = lines_of(p("old.csv"));
  ASSERT_EQ(lines.size(), 3u * 3u * 3u + 1u);
  for (std::size_t r = 1; r < lines.size(); ++r) {
    long long len;
    int snd, rcv;
    double v;
    ASSERT_EQ(std::sscanf(lines[r].c_str(), "%lld,%d,%d,%lf", &len, &snd, &rcv, &v), 4) << lines[r];
    const int k = static_cast<int>((len - s.begin) / s.step);
    EXPECT_EQ(v, legacy_value(snd, rcv, k)) << lines[r];
  }
}

TEST_F(ConvertTest, CsvWritesNan) {
  auto d = awkward(2);
  d->at(1).at(0, 1) = std::numeric_limits<double>::quiet_NaN();
  std::ostringstream out;
  convert::write_csv(out, *d);
  EXPECT_NE(out.str().find("\n100,0,1,nan\n"), std::string::npos) << out.str();
}

// ---- legacy ---------------------------------------------------------------------------------

TEST_F(ConvertTest, UpgradeMapsOrientationAndStoresLengths) {
  struct Case {
    int test_type;
    bool row_is_receiver;  // how network_test2 stored that mode
  };
  // one_to_one, all_to_all, async: the receiver measured; send_recv: the initiator; put: the origin.
  for (const Case c : {Case{1, true}, Case{2, true}, Case{3, true}, Case{4, false}, Case{8, false}}) {
    SCOPED_TRACE("test_type " + std::to_string(c.test_type));
    LegacySpec s;
    s.test_type = c.test_type;
    s.row_is_receiver = c.row_is_receiver;
    s.ranks = 4;
    s.begin = 64;
    s.step = 192;
    s.count = 4;
    const auto in = p("legacy" + std::to_string(c.test_type) + ".nc");
    write_legacy_file(in, s);
    auto legacy = open_dataset(in);
    EXPECT_EQ(legacy->format(), "legacy");
    const auto prefix = p("up" + std::to_string(c.test_type));
    const auto out = convert::upgrade(in, prefix, false);
    ASSERT_EQ(out.size(), 1u);  // no hosts in a legacy file
    EXPECT_EQ(out[0], result_path(prefix, Statistic::average));

    // Read the result with the lowest-level API: message_length must be stored, rows = senders.
    auto f = nc::File::open(out[0]);
    EXPECT_EQ(f.kind(), nc::Kind::cdf2);
    EXPECT_EQ(f.get_att_int(NC_GLOBAL, "format_version"), kFormatVersion);
    const auto lv = f.var("message_length");
    std::vector<int> lens(4);
    f.get(lv.id, {0}, {4}, lens.data());
    EXPECT_EQ(lens, (std::vector<int>{64, 256, 448, 640}));
    std::vector<double> m(16);
    for (int k = 0; k < 4; ++k) {
      f.get(f.var("data").id, {static_cast<std::size_t>(k), 0, 0}, {1, 4, 4}, m.data());
      for (int x = 0; x < 4; ++x)
        for (int y = 0; y < 4; ++y) EXPECT_EQ(m[x * 4 + y], legacy_value(x, y, k)) << "k " << k << " x " << x << " y " << y;
    }
    auto up = open_dataset(out[0]);
    EXPECT_EQ(up->format(), "raw");
    EXPECT_EQ(up->params().mode, *mode_from_code(c.test_type));
    EXPECT_EQ(up->meta().extra.at("upgraded_from"), in.filename().string());
  }
}

TEST_F(ConvertTest, UpgradeKeepsHostsFileBesideLegacyFile) {
  write_legacy_file(p("old_average.nc"), LegacySpec{});
  write_hosts(p("old_hosts.txt"), {"a", "b", "c"}, false);
  const auto out = convert::upgrade(p("old_average.nc"), p("new"), false);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(read_hosts(p("new_hosts.txt")), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(open_dataset(out[0])->meta().hosts, (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(ConvertTest, UpgradeRefusesCurrentFiles) {
  write_raw(p("cur_median.nc"), *awkward(), false);
  try {
    convert::upgrade(p("cur_median.nc"), p("x"), false);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not a legacy"), std::string::npos) << e.what();
  }
}

// ---- NetCDF-4 -------------------------------------------------------------------------------

TEST_F(ConvertTest, Netcdf4CopyReadsBackIdentically) {
  auto d = awkward(5);
  write_raw(p("r_median.nc"), *d, false);
  convert::to_netcdf4(p("r_median.nc"), p("r4.nc"), false);
  EXPECT_EQ(nc::sniff(p("r4.nc")), nc::Magic::hdf5);
  auto f = nc::File::open(p("r4.nc"));
  EXPECT_EQ(f.kind(), nc::Kind::netcdf4);
  auto copy = open_dataset(p("r4.nc"));
  EXPECT_EQ(copy->format(), "netcdf4");
  EXPECT_EQ(copy->params(), d->params());
  EXPECT_EQ(copy->meta().hosts, d->meta().hosts);
  expect_bitwise_equal(*d, *copy);
  // lazy access paths of the reader work on the copy too
  EXPECT_EQ(copy->pair(1, 3), d->pair(1, 3));
  EXPECT_EQ(copy->row(2, 0, 3), d->row(2, 0, 3));
}

TEST_F(ConvertTest, Netcdf4CopyOfLegacyIsInOurOrientation) {
  LegacySpec s;
  write_legacy_file(p("old.nc"), s);
  convert::to_netcdf4(p("old.nc"), p("old4.nc"), false);
  auto copy = open_dataset(p("old4.nc"));
  EXPECT_EQ(copy->format(), "netcdf4");
  EXPECT_EQ(copy->lengths(), (std::vector<std::int64_t>{0, 100, 200}));
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(copy->value(i, j, static_cast<std::size_t>(k)), legacy_value(i, j, k));
}

TEST_F(ConvertTest, Netcdf4CompressesRedundantData) {
  // 64 ranks, every matrix smooth: the compressed copy must be clearly smaller than the raw file.
  SynthParams sp;
  sp.nodes = 8;
  sp.ranks_per_node = 8;
  sp.noise = 0;
  sp.cell_noise = 0;  // this test needs noise-free data (synth is noisy per cell by default)
  sp.lengths = {0, 1024, 4096, 16384};
  auto r = synthesize(sp);
  write_synth(p("s").string(), r, false);
  convert::to_netcdf4(p("s_average.nc"), p("s4.nc"), false);
  EXPECT_LT(fs::file_size(p("s4.nc")) * 2, fs::file_size(p("s_average.nc")));
}

TEST_F(ConvertTest, AllSamplesFileConvertsAsMedian) {
  FileInfo info;
  info.params.proc_num = 2;
  info.params.mode = Mode::one_to_one;
  info.params.num_repeats = 3;
  {
    RawWriter w(p("r_all.nc"), info, false, /*samples=*/3);
    // cell (0,1): samples 3, 1, 2 -> median 2; (1,0): 10, 30, 20 -> 20
    const std::vector<double> v{0, 0, 0, 3e-6, 1e-6, 2e-6, 10e-6, 30e-6, 20e-6, 0, 0, 0};
    w.append(64, v);
    w.close();
  }
  convert::to_netcdf4(p("r_all.nc"), p("c.nc"), false);
  auto c = open_dataset(p("c.nc"));
  EXPECT_EQ(c->params().statistic, Statistic::median);
  EXPECT_EQ(c->value(0, 1, 0), 2e-6);
  EXPECT_EQ(c->value(1, 0, 0), 20e-6);
  EXPECT_NE(c->meta().extra.at("derived_statistic").find("r_all.nc"), std::string::npos);
}

// ---- isolated (network_test --concurrent --retest) -------------------------------------------

TEST_F(ConvertTest, IsolatedValuesReadBackAndReplaceTheLoadedOnes) {
  FileInfo info;
  info.params.proc_num = 2;
  info.params.mode = Mode::one_to_one;
  info.params.statistic = Statistic::median;
  info.meta.hosts = {"a", "b"};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RecordExtras extras;
  extras.isolated = true;
  {
    RawWriter w(p("r_median.nc"), info, false, 0, extras);
    w.append(0, std::vector<double>{0, 9e-6, 2e-6, 0}, {}, {}, std::vector<double>{nan, 3e-6, nan, nan});
    w.append(64, std::vector<double>{0, 8e-6, 4e-6, 0}, {}, {}, std::vector<double>{nan, nan, nan, nan});
    w.close();
  }
  RawReader r(p("r_median.nc"));
  ASSERT_TRUE(r.has_isolated());
  const auto iso0 = r.isolated(0);
  ASSERT_TRUE(iso0);
  EXPECT_EQ(iso0->at(0, 1), 3e-6);
  EXPECT_TRUE(std::isnan(iso0->at(1, 0)));
  EXPECT_EQ(r.matrix(0).at(0, 1), 9e-6);  // data stays the loaded measurement
  EXPECT_THROW(r.isolated(2), Error);
  convert::isolated(p("r_median.nc"), p("i.nc"), false);
  auto i = open_dataset(p("i.nc"));
  EXPECT_EQ(i->value(0, 1, 0), 3e-6);  // re-tested: isolated
  EXPECT_EQ(i->value(1, 0, 0), 2e-6);  // not re-tested: loaded
  EXPECT_EQ(i->value(0, 1, 1), 8e-6);
  EXPECT_EQ(i->meta().extra.at("isolated_cells"), "1");
  EXPECT_FALSE(i->isolated(0));  // the output has only the chosen values
  // A file without the variable (earlier versions, sequential runs) is refused with one message.
  try {
    convert::isolated(p("i.nc"), p("j.nc"), false);
    ADD_FAILURE() << "no refusal";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("has no isolated values"), std::string::npos) << e.what();
  }
  // --resume of a file with the variable needs --retest, and the other way round.
  EXPECT_THROW(RawWriter::resume(p("r_median.nc"), info), UsageError);
  EXPECT_NO_THROW(RawWriter::resume(p("r_median.nc"), info, 0, extras));
}

// ---- merge ----------------------------------------------------------------------------------

TEST_F(ConvertTest, MergeTakesCellwiseMedianAndMin) {
  auto base = awkward(3);
  std::vector<fs::path> runs;
  const double scale[] = {1.0, 3.0, 2.0, 5.0};  // median of 4 runs = mean of 2 and 3
  for (int r = 0; r < 4; ++r) {
    auto d = awkward(3);
    for (std::size_t k = 0; k < 3; ++k)
      for (auto& v : d->at(k).values()) v *= scale[r];
    runs.push_back(p("run" + std::to_string(r) + "_median.nc"));
    write_raw(runs.back(), *d, false);
  }
  const auto out = convert::merge(runs, p("m"), false);
  ASSERT_EQ(out.size(), 3u);
  auto med = open_dataset(p("m_median.nc"));
  auto mn = open_dataset(p("m_min.nc"));
  EXPECT_EQ(med->params().statistic, Statistic::median);
  EXPECT_EQ(mn->params().statistic, Statistic::min);
  EXPECT_EQ(med->lengths(), base->lengths());
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t c = 0; c < 9; ++c) {
      const double v = base->at(k).values()[c];
      EXPECT_EQ(med->matrix(k).values()[c], (v * 2.0 + v * 3.0) / 2.0);
      EXPECT_EQ(mn->matrix(k).values()[c], v * 1.0);
    }
  EXPECT_EQ(med->meta().extra.at("merged_runs"), "run0_median.nc run1_median.nc run2_median.nc run3_median.nc");
  EXPECT_EQ(read_hosts(p("m_hosts.txt")), base->meta().hosts);
}

TEST_F(ConvertTest, MergeSkipsNanCells) {
  auto a = awkward(2), b = awkward(2), c = awkward(2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  a->at(0).at(0, 1) = nan;
  b->at(0).at(0, 1) = 4.0;
  c->at(0).at(0, 1) = 2.0;
  for (auto* d : {a.get(), b.get(), c.get()}) d->at(2).at(1, 0) = nan;
  write_raw(p("a_median.nc"), *a, false);
  write_raw(p("b_median.nc"), *b, false);
  write_raw(p("c_median.nc"), *c, false);
  convert::merge({p("a_median.nc"), p("b_median.nc"), p("c_median.nc")}, p("m"), false);
  auto med = open_dataset(p("m_median.nc"));
  EXPECT_EQ(med->value(0, 1, 0), 3.0);
  EXPECT_TRUE(std::isnan(med->value(1, 0, 2)));
}

TEST_F(ConvertTest, MergeRefusalNamesTheParameter) {
  auto a = awkward(3);
  write_raw(p("a_median.nc"), *a, false);
  auto expect_refusal = [&](MemoryDataset& other, const std::string& name, const std::string& what) {
    write_raw(p(name), other, true);
    try {
      convert::merge({p("a_median.nc"), p(name)}, p("m_" + name), false);
      ADD_FAILURE() << "no refusal for " << what;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(p("m_" + name + "_median.nc")));
  };
  {
    auto b = awkward(3);
    b->mutable_info().params.num_repeats = 6;
    expect_refusal(*b, "rep_median.nc", "number of repeats differs (5 vs 6)");
  }
  {
    auto b = awkward(3);
    b->mutable_info().params.mode = Mode::bcast;
    expect_refusal(*b, "mode_median.nc", "mode (test_type) differs (all_to_all vs bcast)");
  }
  {
    auto b = awkward(3);
    b->mutable_info().params.num_noise_procs = 2;
    expect_refusal(*b, "noise_median.nc", "number of noise processes differs (0 vs 2)");
  }
  {
    auto b = awkward(4);
    expect_refusal(*b, "ranks_median.nc", "number of ranks (proc_num) differs (3 vs 4)");
  }
  {
    auto b = awkward(3);
    b->mutable_info().meta.hosts = {"x", "y", "z"};
    expect_refusal(*b, "hosts_median.nc", "different hosts (rank 0: host0 vs x)");
    convert::MergeOptions o;
    o.ignore_hosts = true;
    EXPECT_NO_THROW(convert::merge({p("a_median.nc"), p("hosts_median.nc")}, p("ok"), false, o));
  }
  {
    // a run cut short: fewer lengths
    FileInfo info = a->info();
    MemoryDataset b(info);
    b.append(0, a->at(0));
    b.append(100, a->at(1));
    expect_refusal(b, "short_median.nc", "message lengths differs ([0,100,200] vs [0,100])");
  }
}

// ---- overwrite protection ---------------------------------------------------------------------

TEST_F(ConvertTest, OutputsAreNeverOverwrittenWithoutForce) {
  write_raw(p("r_median.nc"), *awkward(), false);
  for (const auto& name : {"o.txt", "o.csv", "o.json", "o.nc"}) {
    std::ofstream(p(name)) << "keep\n";
  }
  EXPECT_THROW(convert::to_text(p("r_median.nc"), p("o.txt"), false), FileError);
  EXPECT_THROW(convert::to_csv(p("r_median.nc"), p("o.csv"), false), FileError);
  EXPECT_THROW(convert::to_json(p("r_median.nc"), p("o.json"), false), FileError);
  EXPECT_THROW(convert::to_netcdf4(p("r_median.nc"), p("o.nc"), false), FileError);
  for (const auto& name : {"o.txt", "o.csv", "o.json", "o.nc"}) EXPECT_EQ(lines_of(p(name)), std::vector<std::string>{"keep"});
  convert::to_csv(p("r_median.nc"), p("o.csv"), true);
  EXPECT_EQ(lines_of(p("o.csv")).size(), 28u);
  convert::to_netcdf4(p("r_median.nc"), p("o.nc"), true);
  EXPECT_EQ(open_dataset(p("o.nc"))->count(), 3u);
  // no temporary files left behind
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find("partial"), std::string::npos) << e.path();
}

TEST_F(ConvertTest, FailedConversionLeavesNothing) {
  std::ofstream(p("bad.txt")) << "processors 2\ntest type \"one_to_one\"\nMessage length 0\n0 1\n";
  EXPECT_THROW(convert::from_text(p("bad.txt"), p("x"), false), FileError);
  EXPECT_THROW(convert::to_csv(p("bad.txt"), p("x.csv"), false), FileError);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1);
}

// ---- pair / info / json -------------------------------------------------------------------------

TEST_F(ConvertTest, PairIsSenderToReceiver) {
  write_legacy_file(p("old.nc"), LegacySpec{});
  auto d = open_dataset(p("old.nc"));
  std::ostringstream out;
  convert::write_pair(out, *d, 2, 0);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "message_length\tdelay_2_to_0_s");
  for (int k = 0; k < 3; ++k) {
    long long len;
    double v;
    ASSERT_TRUE(in >> len >> v);
    EXPECT_EQ(len, 100 * k);
    EXPECT_EQ(v, legacy_value(2, 0, k));
  }
  EXPECT_THROW(convert::write_pair(out, *d, 0, 3), UsageError);
}

TEST_F(ConvertTest, InfoReportsCutShortRuns) {
  auto d = awkward(3);
  FileInfo info = d->info();
  info.params.end_length = 500;  // the sweep asked for 6 lengths, the job wrote 3
  {
    RawWriter w(p("cut_median.nc"), info, false);
    for (std::size_t k = 0; k < 3; ++k) w.append(d->lengths()[k], d->at(k));
    w.close();
  }
  auto f = open_dataset(p("cut_median.nc"));
  std::ostringstream out;
  convert::write_info(out, *f);
  EXPECT_NE(out.str().find("3 of 6 (cut short"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("all cells"), std::string::npos);  // all_to_all keeps its diagonal

  // A list or geometric sweep (step 0) records only its last planned length: stopping below it
  // is cut short too (nt::sweep_completeness, the rule the viewer shows as well).
  info.params.step_length = 0;
  info.params.end_length = 1048576;
  {
    RawWriter w(p("cut_geo_median.nc"), info, false);
    for (std::size_t k = 0; k < 3; ++k) w.append(d->lengths()[k], d->at(k));
    w.close();
  }
  std::ostringstream geo;
  convert::write_info(geo, *open_dataset(p("cut_geo_median.nc")));
  EXPECT_NE(geo.str().find("lengths stored    3 (cut short: the run stopped before 1048576 B)"), std::string::npos)
      << geo.str();
  info.params.end_length = static_cast<int>(d->lengths()[2]);
  {
    RawWriter w(p("whole_geo_median.nc"), info, false);
    for (std::size_t k = 0; k < 3; ++k) w.append(d->lengths()[k], d->at(k));
    w.close();
  }
  std::ostringstream whole;
  convert::write_info(whole, *open_dataset(p("whole_geo_median.nc")));
  EXPECT_EQ(whole.str().find("cut short"), std::string::npos) << whole.str();
}

TEST_F(ConvertTest, InfoSummarisesOffDiagonal) {
  FileInfo info;
  info.params.proc_num = 2;
  info.params.mode = Mode::one_to_one;
  MemoryDataset d(info);
  d.append(8, Matrix(2, {0.0, 2e-6, 4e-6, 0.0}));
  std::ostringstream out;
  convert::write_info(out, d);
  const auto s = out.str();
  EXPECT_NE(s.find("off-diagonal"), std::string::npos);
  // min ignores the zero diagonal; median of {2, 4} is 3
  const auto row = fmt::format("  {:>14}  {:>12}  {:>12}  {:>12}\n", 8, format_seconds(2e-6), format_seconds(3e-6),
                               format_seconds(4e-6));
  EXPECT_NE(s.find(row), std::string::npos) << s;
}

TEST_F(ConvertTest, JsonHoldsMatricesInOurOrientation) {
  write_legacy_file(p("old.nc"), LegacySpec{});
  auto d = open_dataset(p("old.nc"));
  std::ostringstream out;
  convert::write_json(out, *d);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["parameters"]["mode"], "one_to_one");
  EXPECT_EQ(j["metadata"]["format_version"], 0);
  EXPECT_EQ(j["message_lengths"], nlohmann::json({0, 100, 200}));
  ASSERT_EQ(j["matrices"].size(), 3u);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i)
      for (int jj = 0; jj < 3; ++jj) EXPECT_EQ(j["matrices"][k][i][jj].get<double>(), legacy_value(i, jj, k));
}

TEST_F(ConvertTest, JsonEncodesNanAsNull) {
  auto d = awkward(2);
  d->at(0).at(1, 0) = std::numeric_limits<double>::quiet_NaN();
  std::ostringstream out;
  convert::write_json(out, *d);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_TRUE(j["matrices"][0][1][0].is_null());
  EXPECT_EQ(j["matrices"][2][0][1].get<double>(), d->at(2).at(0, 1));
}

TEST(FormatDouble, ShortestRoundTrip) {
  for (double v : {0.0, 1e-6, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, 2.0000000000000004e-06})
    EXPECT_EQ(std::strtod(convert::format_double(v).c_str(), nullptr), v);
  EXPECT_EQ(convert::format_double(1e-6), "1e-06");
  EXPECT_EQ(convert::format_double(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace

// `info` shows the machine description a run recorded (MPI library, CPU per host, binding per
// rank) from a real file, and says "(not recorded)" for files without it.
TEST_F(ConvertTest, InfoShowsTheMachine) {
  auto d = awkward(2);
  FileInfo info = d->info();
  info.meta.mpi_version = "MPICH Version: 4.0.2";
  info.meta.hosts = {"n1", "n1", "n2"};
  info.params.proc_num = 3;
  info.meta.extra[kAttrNodeCpu] = "n1: Xeon Gold 6130; 2 socket(s), 32 cores, 64 hardware threads\nn2: EPYC 7742; 1 socket(s), 64 cores, 128 hardware threads";
  info.meta.extra[kAttrRankBinding] = "0 (1 of 64)\n16 (1 of 64)\n0-127 (all)";
  {
    RawWriter w(p("mach_median.nc"), info, false);
    w.append(0, Matrix(3, std::vector<double>(9, 1e-6)));
    w.close();
  }
  std::ostringstream out;
  convert::write_info(out, *open_dataset(p("mach_median.nc")));
  const auto s = out.str();
  EXPECT_NE(s.find("machine:\n  MPI library     MPICH Version: 4.0.2\n"
                   "  CPU             n1: Xeon Gold 6130; 2 socket(s), 32 cores, 64 hardware threads\n"
                   "  CPU             n2: EPYC 7742; 1 socket(s), 64 cores, 128 hardware threads\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("bound to"), std::string::npos) << s;
  const auto row = [](int r, const char* host, const char* bound) {
    return fmt::format("  {:>6}  {:<24} {:>5} {:>5}  {}\n", r, host, "-", "-", bound);
  };
  EXPECT_NE(s.find(row(1, "n1", "16 (1 of 64)")), std::string::npos) << s;
  EXPECT_NE(s.find(row(2, "n2", "0-127 (all)")), std::string::npos) << s;
  EXPECT_EQ(s.find("rank_binding"), std::string::npos) << "raw attribute listed again:\n" << s;

  write_legacy_file(p("old_mach.nc"), LegacySpec{});
  std::ostringstream old;
  convert::write_info(old, *open_dataset(p("old_mach.nc")));
  EXPECT_NE(old.str().find("  CPU             (not recorded)\n"), std::string::npos) << old.str();
}

// ---- the commands' library side (what the thin main calls) -------------------------------

TEST(SweepLengths, LinearSweepsAndTheirRefusals) {
  using convert::Sweep;
  EXPECT_TRUE(convert::sweep_lengths(Sweep{}).empty());  // nothing given: the defaults stay
  EXPECT_EQ(convert::sweep_lengths(Sweep{100, 400, 100}), (std::vector<std::int64_t>{100, 200, 300, 400}));
  EXPECT_EQ(convert::sweep_lengths(Sweep{std::nullopt, 10, 5}), (std::vector<std::int64_t>{0, 5, 10}));
  EXPECT_EQ(convert::sweep_lengths(Sweep{0, 9, 4}), (std::vector<std::int64_t>{0, 4, 8}));  // end not on the grid
  auto refused = [](const Sweep& s, const std::string& why) {
    try {
      convert::sweep_lengths(s);
      ADD_FAILURE() << "accepted, expected: " << why;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused(Sweep{100, std::nullopt, std::nullopt}, "needs --end and --step");
  refused(Sweep{std::nullopt, 100, std::nullopt}, "needs --end and --step");
  refused(Sweep{100, 10, 5}, "impossible sweep begin 100 end 10 step 5");
  refused(Sweep{0, 10, 0}, "impossible sweep");
  refused(Sweep{-1, 10, 1}, "impossible sweep");
  refused(Sweep{0, 1000000, 1}, "more than 100000 lengths");
}

TEST_F(ConvertTest, SynthWritesTheWholeSetOrNothing) {
  SynthParams sp;
  sp.nodes = 2;
  sp.ranks_per_node = 2;
  sp.lengths = {0, 512};
  const auto files = convert::synth(sp, p("s"), false);
  ASSERT_EQ(files.size(), 6u);
  for (const auto& f : files) EXPECT_TRUE(fs::exists(f)) << f;
  EXPECT_EQ(open_dataset(p("s_median.nc"))->lengths(), sp.lengths);
  // One existing member refuses the whole set before any work, and leaves the rest alone.
  fs::remove(p("s_min.nc"));
  EXPECT_THROW(convert::synth(sp, p("s"), false), FileError);
  EXPECT_FALSE(fs::exists(p("s_min.nc")));
  sp.lengths = {0, -8};
  EXPECT_THROW(convert::synth(sp, p("neg"), false), UsageError);
  EXPECT_FALSE(fs::exists(p("neg_median.nc")));
}

TEST_F(ConvertTest, PairCommandWritesAFileAndRefusesBadRanks) {
  write_legacy_file(p("old.nc"), LegacySpec{});
  convert::pair(p("old.nc"), p("pair.txt"), 2, 0, false);
  const auto lines = lines_of(p("pair.txt"));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "message_length\tdelay_2_to_0_s");
  EXPECT_EQ(lines[3], "200\t" + convert::format_double(legacy_value(2, 0, 2)));
  EXPECT_THROW(convert::pair(p("old.nc"), p("bad.txt"), 0, 3, false), UsageError);
  EXPECT_FALSE(fs::exists(p("bad.txt")));
  EXPECT_THROW(convert::pair(p("old.nc"), p("pair.txt"), 2, 0, false), FileError);  // exists, no force
}

// The mode option parses names and the original's aliases into the Mode, through the real command
// line; an unknown name is one clear error with exit code 2 and writes nothing.
TEST_F(ConvertTest, SynthModeOptionTakesNamesAndAliases) {
  const std::string prefix = p("m").string();
  auto run = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return convert::run(static_cast<int>(argv.size()), argv.data());
  };
  ASSERT_EQ(run({"network_convert", "synth", "-o", prefix, "--nodes", "1", "--ranks-per-node", "2", "--lengths",
                 "0", "--mode", "put_one_to_one"}),
            0);
  EXPECT_EQ(open_dataset(p("m_median.nc"))->params().mode, Mode::put);
  testing::internal::CaptureStderr();
  const int rc = run({"network_convert", "synth", "-o", p("x").string(), "--mode", "one-to-one"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("--mode: 'one-to-one' is not one of one_to_one, all_to_all,"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(p("x_median.nc")));
}

// ---- streaming ------------------------------------------------------------

namespace {

// 65 nodes x 8 ranks, 2 lengths: matrices of 520 ranks, more than one ~1 MB block or piece.
SynthParams five_hundred_twenty_ranks() {
  SynthParams sp{.nodes = 65, .ranks_per_node = 8, .repeats = 2, .lengths = {0, 4096}};
  return sp;
}

std::string file_bytes(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

// synth writes as it generates (row by row): the same bytes as the in-memory path
// (synthesize + write_synth), for both diagonal rules, a shuffle, a slow node and a list sweep.
TEST_F(ConvertTest, StreamedSynthIsByteIdenticalToInMemory) {
  for (Mode mode : {Mode::one_to_one, Mode::all_to_all}) {
    SynthParams sp{.nodes = 5, .ranks_per_node = 3, .nodes_per_switch = 2, .protocol_step = 1000, .slow_node = 1,
                   .shuffle = true, .seed = 11, .mode = mode, .lengths = {0, 100, 1000, 5000}};
    const std::string tag = mode == Mode::one_to_one ? "o" : "a";
    write_synth(p("mem" + tag).string(), synthesize(sp), false);
    convert::synth(sp, p("str" + tag), false);
    for (Statistic s : standard_statistics()) {
      const auto a = file_bytes(result_path(p("mem" + tag), s)), b = file_bytes(result_path(p("str" + tag), s));
      ASSERT_FALSE(a.empty());
      EXPECT_TRUE(a == b) << statistic_name(s) << " differs (" << a.size() << " vs " << b.size() << " bytes)";
    }
    EXPECT_EQ(file_bytes(hosts_path(p("mem" + tag))), file_bytes(hosts_path(p("str" + tag))));
  }
}

// merge reads and writes blocks of rows (about 1 MB: 252 rows of 520 ranks, so three blocks, the
// last one short). Its files equal, byte for byte, a raw file written whole (RawWriter) from the
// cell-wise median and minimum computed here from whole matrices, NaN cells included.
TEST_F(ConvertTest, StreamedMergeOfManyBlocksEqualsWholeMatrices) {
  SynthParams sp = five_hundred_twenty_ranks();
  std::vector<fs::path> runs;
  for (int r = 0; r < 3; ++r) {
    sp.seed = static_cast<std::uint64_t>(20 + r);
    const auto syn = synthesize(sp);
    MemoryDataset d(syn.stats.at(Statistic::median)->info(), "memory");
    for (std::size_t k = 0; k < sp.lengths.size(); ++k) {
      Matrix m = syn.stats.at(Statistic::median)->matrix(k);
      if (r == 0) m.at(3, 5) = std::numeric_limits<double>::quiet_NaN();
      if (r <= 1) m.at(300, 2) = std::numeric_limits<double>::quiet_NaN();  // one value left there
      if (r <= 2) m.at(519, 518) = std::numeric_limits<double>::quiet_NaN();  // none left: NaN
      d.append(sp.lengths[k], std::move(m));
    }
    runs.push_back(p(fmt::format("run{}.nc", r)));
    write_raw(runs.back(), d, false);
  }
  convert::merge(runs, p("m"), false, {});
  std::vector<std::unique_ptr<Dataset>> in;
  for (const auto& f : runs) in.push_back(open_dataset(f));
  for (Statistic s : {Statistic::median, Statistic::min}) {
    const auto streamed = open_dataset(result_path(p("m"), s));
    MemoryDataset whole(streamed->info(), "memory");
    for (std::size_t k = 0; k < sp.lengths.size(); ++k) {
      std::vector<Matrix> ms;
      for (const auto& d : in) ms.push_back(d->matrix(k));
      Matrix out(520);
      for (std::size_t c = 0; c < out.values().size(); ++c) {
        std::vector<double> cell;
        for (const auto& m : ms)
          if (!std::isnan(m.values()[c])) cell.push_back(m.values()[c]);
        out.values()[c] = cell.empty() ? std::numeric_limits<double>::quiet_NaN()
                          : s == Statistic::min ? *std::min_element(cell.begin(), cell.end())
                                                : nt::median(cell);
      }
      EXPECT_TRUE(std::isnan(out.at(519, 518)));
      EXPECT_FALSE(std::isnan(out.at(300, 2)));
      whole.append(sp.lengths[k], std::move(out));
    }
    write_raw(p(fmt::format("whole_{}.nc", statistic_name(s))), whole, false);
    EXPECT_TRUE(file_bytes(p(fmt::format("whole_{}.nc", statistic_name(s)))) == file_bytes(result_path(p("m"), s)))
        << statistic_name(s);
  }
}

// to-csv writes its text in pieces of about 1 MB: a 520-rank matrix (about 9 MB of text) comes
// out line for line as the exact values, NaN included.
TEST_F(ConvertTest, CsvOfBigMatricesIsWrittenInPiecesExactly) {
  SynthParams sp = five_hundred_twenty_ranks();
  const auto syn = synthesize(sp);
  MemoryDataset d(syn.stats.at(Statistic::average)->info(), "memory");
  for (std::size_t k = 0; k < 2; ++k) {
    Matrix m = syn.stats.at(Statistic::average)->matrix(k);
    m.at(400, 7) = std::numeric_limits<double>::quiet_NaN();
    d.append(sp.lengths[k], std::move(m));
  }
  write_raw(p("big.nc"), d, false);
  convert::to_csv(p("big.nc"), p("big.csv"), false);
  std::string expected = "message_length,sender,receiver,value\n";
  for (std::size_t k = 0; k < 2; ++k)
    for (int i = 0; i < 520; ++i)
      for (int j = 0; j < 520; ++j)
        expected += fmt::format("{},{},{},{}\n", sp.lengths[k], i, j, convert::format_double(d.value(i, j, k)));
  const auto got = file_bytes(p("big.csv"));
  EXPECT_GT(got.size(), 4u << 20);
  EXPECT_TRUE(got == expected) << got.size() << " vs " << expected.size() << " bytes";
}
