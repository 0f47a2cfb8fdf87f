// Unit tests of nt_convert: exact round trips, CSV shape and orientation, legacy upgrades,
// NetCDF-4 copies, isolated values, merging (outputs, info, the commands' library side and
// streaming: test_convert_commands.cpp). Real files in a per-test temporary directory.
#include "convert_fixture.hpp"

using namespace nt;
using nt::convert::test::ConvertTest;
using namespace nt::fixtures;

namespace {

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

}  // namespace
