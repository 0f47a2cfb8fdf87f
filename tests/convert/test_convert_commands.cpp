// Unit tests of nt_convert's outputs and commands: overwrite protection, pair, info and JSON,
// the commands' library side and streamed writing of big matrices (the conversions themselves:
// test_convert.cpp). Real files in a per-test temporary directory.
#include "convert_fixture.hpp"

using namespace nt;
using nt::convert::test::ConvertTest;
using namespace nt::fixtures;

namespace {

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
