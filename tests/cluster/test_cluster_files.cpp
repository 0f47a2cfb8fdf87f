// Tests of network_cluster's files, the core reader and the commands: random access, bad and corrupt
// inputs, old layouts, topology classes and small inputs (the algorithm: test_cluster.cpp).
#include "cluster_helpers.hpp"

using namespace nt;
using namespace nt::cluster::test;
using nt::cluster::Options;
using nt::cluster::Tolerance;

// Every random-access path of the reader agrees with the whole matrices, and a decompressed raw
// file holds exactly the reconstructed values.
TEST(Reader, RandomAccessEqualsDecompressed) {
  const fs::path dir = temp_dir("reader");
  // Two regimes: ranks grouped by i%3 for the first lengths, by i%2 afterwards.
  const int P0 = 13;
  std::vector<std::int64_t> lens;
  for (int k = 0; k < 11; ++k) lens.push_back(100 * k);
  auto in = std::make_unique<MemoryDataset>(make_info(P0, lens));
  for (int k = 0; k < 11; ++k) {
    Matrix m(P0);
    for (int i = 0; i < P0; ++i)
      for (int j = 0; j < P0; ++j)
        m.at(i, j) = k < 5 ? 1e-6 * (1 + (i % 3) + 3 * (j % 3)) * (1 + 0.01 * k) : 2e-6 * (1 + (i % 2) * 2 + (j % 2)) + 1e-9 * (i * P0 + j) * k;
    in->append(lens[static_cast<std::size_t>(k)], m);
  }
  write_raw(dir / "in.nc", *in, true);
  Options o;
  o.threshold = 0.02;
  o.relative = true;
  o.exceptions = 1;
  o.min_region = 2;
  cluster::compress_file(dir / "in.nc", dir / "c.nc", o, true);
  const auto ds = open_dataset(dir / "c.nc");
  EXPECT_GE(read_layout(dir / "c.nc").starts.size(), 2u) << "want several regions for this test";
  write_raw(dir / "dec.nc", *ds, true);
  const auto dec = open_dataset(dir / "dec.nc");
  ASSERT_EQ(dec->format(), "raw");
  EXPECT_EQ(dec->meta().extra.count("cluster_threshold_mode"), 0u);
  const int P = ds->ranks();
  const std::size_t N = ds->count();
  std::vector<Matrix> full;
  for (std::size_t k = 0; k < N; ++k) {
    full.push_back(ds->matrix(k));
    EXPECT_EQ(dec->matrix(k), full.back());
  }
  for (int i = 0; i < P; ++i) {
    const auto row = ds->row(i, 1, N);
    const auto col = ds->column(i, 0, N - 1);
    for (std::size_t k = 1; k < N; ++k)
      for (int j = 0; j < P; ++j) ASSERT_EQ(row[(k - 1) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)], full[k].at(i, j));
    for (std::size_t k = 0; k + 1 < N; ++k)
      for (int j = 0; j < P; ++j) ASSERT_EQ(col[k * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)], full[k].at(j, i));
    for (int j = 0; j < P; ++j) {
      const auto pr = ds->pair(i, j);
      ASSERT_EQ(pr.size(), N);
      for (std::size_t k = 0; k < N; ++k) {
        ASSERT_EQ(pr[k], full[k].at(i, j));
        ASSERT_EQ(ds->value(i, j, k), full[k].at(i, j));
      }
    }
  }
  EXPECT_THROW(ds->value(P, 0, 0), Error);
  EXPECT_THROW((void)ds->matrix(N), Error);
}

TEST(BadInput, NanOneLengthAndOptions) {
  const fs::path dir = temp_dir("bad");
  std::mt19937_64 rng(9);
  auto in = block_data(rng, 4, 3, true);
  in->at(1).at(2, 3) = std::numeric_limits<double>::quiet_NaN();
  write_raw(dir / "nan.nc", *in, true);
  Options o;
  EXPECT_THROW(cluster::compress_file(dir / "nan.nc", dir / "o.nc", o, true), Error);
  EXPECT_FALSE(fs::exists(dir / "o.nc"));

  auto one = block_data(rng, 4, 1, true);
  write_raw(dir / "one.nc", *one, true);
  o.min_region = 2;
  EXPECT_THROW(cluster::compress_file(dir / "one.nc", dir / "o.nc", o, true), UsageError);
  o.min_region = 1;  // documented: one length is one region with --min-region 1
  EXPECT_NO_THROW(cluster::compress_file(dir / "one.nc", dir / "o.nc", o, true));
  EXPECT_EQ(open_dataset(dir / "o.nc")->count(), 1u);
  EXPECT_THROW(cluster::compress_file(dir / "one.nc", dir / "o.nc", o, false), FileError);  // exists

  Options bad;
  bad.relative = true;
  bad.threshold = 1.5;
  EXPECT_THROW(bad.validate(), UsageError);
  bad.threshold = -1;
  EXPECT_THROW(bad.validate(), UsageError);
  bad.threshold = 0.1;
  bad.exceptions = -1;
  EXPECT_THROW(bad.validate(), UsageError);

  std::ofstream(dir / "garbage.nc") << "this is not a result file\n";
  EXPECT_THROW(cluster::compress_file(dir / "garbage.nc", dir / "o2.nc", Options{}, true), Error);
  EXPECT_THROW(cluster::summarize_file(dir / "in_missing.nc"), Error);
  EXPECT_THROW(cluster::summarize_file(dir / "one.nc"), FileError);  // raw, not clustered
}

// Corrupt clustered files: clear errors, never a crash.
TEST(BadInput, CorruptClusteredFiles) {
  const fs::path dir = temp_dir("corrupt");
  const auto in = block_data(21, 6, 5);
  write_raw(dir / "in.nc", *in, true);
  Options o;
  o.min_region = 1;
  cluster::compress_file(dir / "in.nc", dir / "good.nc", o, true);
  // An offset pointing outside data.
  fs::copy_file(dir / "good.nc", dir / "off.nc");
  {
    nc::File f = nc::File::open(dir / "off.nc", true);
    const int big = 1 << 30;
    f.put(f.var("info").id, {0, 1, 2}, {1, 1, 1}, &big);
    f.close();
  }
  const auto ds = open_dataset(dir / "off.nc");
  EXPECT_THROW((void)ds->matrix(0), FileError);
  EXPECT_THROW(ds->value(1, 2, 0), FileError);
  EXPECT_NO_THROW(ds->value(0, 0, 0));
  // Region starts not increasing.
  fs::copy_file(dir / "good.nc", dir / "len.nc");
  {
    nc::File f = nc::File::open(dir / "len.nc", true);
    const int bad = 99;
    f.put(f.var("length").id, {0}, {1}, &bad);
    f.close();
  }
  EXPECT_THROW(open_dataset(dir / "len.nc"), FileError);
  // A newer layout version is refused with a message naming both versions.
  fs::copy_file(dir / "good.nc", dir / "newer.nc");
  set_clustered_attribute(dir / "newer.nc", "cluster_layout_version", kClusteredLayoutVersion + 1.0);
  try {
    (void)open_dataset(dir / "newer.nc");
    ADD_FAILURE() << "newer layout accepted";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("version " + std::to_string(kClusteredLayoutVersion + 1) + " is newer"), std::string::npos) << e.what();
  }
  // Truncated file.
  {
    const auto size = fs::file_size(dir / "good.nc");
    fs::copy_file(dir / "good.nc", dir / "trunc.nc");
    fs::resize_file(dir / "trunc.nc", size / 2);
  }
  EXPECT_THROW(
      {
        const auto t = open_dataset(dir / "trunc.nc");
        for (std::size_t k = 0; k < t->count(); ++k) (void)t->matrix(k);
      },
      Error);
}

// Topology classes: on synthetic data with random rank placement the classes are the nodes; a
// single misbehaving rank gets a class of its own and its host is reported as split.
TEST(Groups, ClassesAreTheNodes) {
  const fs::path dir = temp_dir("groups");
  SynthParams sp{.nodes = 6, .ranks_per_node = 4, .nodes_per_switch = 3, .slow_node = 2, .shuffle = true, .seed = 5,
                 .lengths = {0, 1024, 4096, 16384, 65536}};
  const SynthResult syn = synthesize(sp);
  auto& ds = *syn.stats.at(Statistic::median);
  ds.mutable_info().meta.hosts = syn.hosts;
  Options o;
  o.threshold = 0.05;
  o.relative = true;
  write_raw(dir / "in.nc", ds, true);
  cluster::compress_file(dir / "in.nc", dir / "c.nc", o, true);
  const Layout lay = read_layout(dir / "c.nc");
  const auto rc = cluster::rank_classes(lay.info, ds.ranks());
  ASSERT_EQ(rc.members.size(), 6u);
  for (int a = 0; a < ds.ranks(); ++a)
    for (int b = 0; b < ds.ranks(); ++b)
      EXPECT_EQ(rc.class_of[static_cast<std::size_t>(a)] == rc.class_of[static_cast<std::size_t>(b)],
                syn.node_of_rank[static_cast<std::size_t>(a)] == syn.node_of_rank[static_cast<std::size_t>(b)])
          << a << " " << b;
  const std::string text = cluster::groups_report(dir / "c.nc", false);
  EXPECT_NE(text.find("24 ranks in 6 topology classes"), std::string::npos) << text;
  EXPECT_EQ(text.find("is split"), std::string::npos) << text;

  // Rank 7 becomes twice as slow on every send and receive.
  for (std::size_t k = 0; k < ds.count(); ++k)
    for (int j = 0; j < ds.ranks(); ++j) {
      ds.at(k).at(7, j) *= 2;
      ds.at(k).at(j, 7) *= 2;
    }
  write_raw(dir / "in2.nc", ds, true);
  cluster::compress_file(dir / "in2.nc", dir / "c2.nc", o, true);
  const auto rc2 = cluster::rank_classes(read_layout(dir / "c2.nc").info, ds.ranks());
  EXPECT_EQ(rc2.members.size(), 7u);
  EXPECT_EQ(rc2.members[static_cast<std::size_t>(rc2.class_of[7])], std::vector<int>{7});
  const std::string text2 = cluster::groups_report(dir / "c2.nc", false);
  EXPECT_NE(text2.find("host " + syn.hosts[7] + " is split"), std::string::npos) << text2;
  const auto j = nlohmann::json::parse(cluster::groups_report(dir / "c2.nc", true));
  EXPECT_EQ(j["classes"].size(), 7u);
  EXPECT_TRUE(j["hosts_split_over_classes"].contains(syn.hosts[7]));
  EXPECT_THROW(cluster::groups_report(dir / "in.nc", false), FileError);
  // A raw file clustered in memory gives the same classes as its clustered file.
  const std::string from_raw = cluster::groups_report(dir / "in2.nc", false, &o);
  EXPECT_NE(from_raw.find("24 ranks in 7 topology classes"), std::string::npos) << from_raw;
  EXPECT_NE(from_raw.find("host " + syn.hosts[7] + " is split"), std::string::npos) << from_raw;
}

// Any file the suite reads is an input; for non-CDF inputs the ratio uses the raw payload size.
TEST(Inputs, TextFileAndMissingDirectory) {
  const fs::path dir = temp_dir("text");
  const auto in = block_data(31, 5, 4);
  write_text(dir / "in.txt", *in, true);
  Options o;
  const auto rep = cluster::compress_file(dir / "in.txt", dir / "c.nc", o, false);
  EXPECT_EQ(rep.raw_bytes, 8u * 25u * 4u + 4u * 4u);
  check_rules(*in, dir / "c.nc", o);
  // A missing output directory is created; a regular file in the way of the directory is an error.
  cluster::compress_file(dir / "in.txt", dir / "no" / "such" / "c.nc", o, false);
  EXPECT_TRUE(fs::is_regular_file(dir / "no" / "such" / "c.nc"));
  EXPECT_THROW(cluster::compress_file(dir / "in.txt", dir / "in.txt" / "c.nc", o, false), Error);
}

// A clustered file of layout 1, written by network_cluster before residuals existed (checked in:
// data/layout1_clustered.nc from data/layout1_input.nc at 5 %, --exceptions 1), still reads.
TEST(OldFormat, Layout1FileReads) {
  const fs::path data = NT_CLUSTER_TEST_DATA;
  const auto old = open_dataset(data / "layout1_clustered.nc");
  const auto in = open_dataset(data / "layout1_input.nc");
  ASSERT_EQ(old->format(), "clustered");
  ASSERT_EQ(old->ranks(), in->ranks());
  ASSERT_EQ(old->lengths(), in->lengths());
  const Tolerance tol(0.05, true);
  for (std::size_t k = 0; k < in->count(); ++k) {
    const Matrix a = in->matrix(k), b = old->matrix(k);
    for (int i = 0; i < in->ranks(); ++i)
      for (int j = 0; j < in->ranks(); ++j) {
        EXPECT_TRUE(tol.within(a.at(i, j), b.at(i, j))) << i << " " << j << " " << k;
        EXPECT_EQ(old->value(i, j, k), b.at(i, j));
      }
  }
  const auto s = cluster::summarize_file(data / "layout1_clustered.nc");
  EXPECT_EQ(s.ranks, 12);
  EXPECT_NE(cluster::groups_report(data / "layout1_clustered.nc", false).find("12 ranks"), std::string::npos);
}

// Layout 2: a residual variable that is not what the format says is refused with a FileError.
TEST(BadInput, CorruptResiduals) {
  const fs::path dir = temp_dir("corrupt_res");
  SynthParams sp{.nodes = 20, .ranks_per_node = 4, .shuffle = true, .cell_noise = 0.05, .lengths = {0, 1024, 4096}};
  const SynthResult syn = synthesize(sp);
  write_raw(dir / "in.nc", *syn.stats.at(Statistic::median), true);
  Options o;
  o.threshold = 0.01;
  o.relative = true;
  cluster::compress_file(dir / "in.nc", dir / "good.nc", o, true);
  {
    const nc::File f = nc::File::open(dir / "good.nc");
    ASSERT_TRUE(f.find_var("residual").has_value()) << "5 % noise at a 1 % bound must need residuals";
  }
  const auto broken = [&](const std::string& name, const std::function<void(nc::File&, int)>& edit) {
    fs::copy_file(dir / "good.nc", dir / name, fs::copy_options::overwrite_existing);
    {
      nc::File f = nc::File::open(dir / name, true);
      f.redef();
      edit(f, f.var("residual").id);
      f.enddef();
      f.close();
    }
    try {
      (void)open_dataset(dir / name);
      ADD_FAILURE() << name << " accepted";
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find("corrupt clustered file"), std::string::npos) << e.what();
    }
  };
  broken("step0.nc", [](nc::File& f, int v) { f.put_att(v, "residual_step", 0.0); });
  broken("stepnan.nc", [](nc::File& f, int v) { f.put_att(v, "residual_step", std::nan("")); });
  broken("mode.nc", [](nc::File& f, int v) { f.put_att(v, "residual_mode", std::string("sideways")); });
}

// ---- the commands' library side (what the thin main calls) -------------------------------

TEST(Commands, ThresholdTextUnitsAndRefusals) {
  auto parsed = [](const std::string& text, bool relative = false) {
    Options o;
    o.relative = relative;
    cluster::parse_threshold(text, o, false);
    return std::make_pair(o.threshold, o.relative);
  };
  EXPECT_DOUBLE_EQ(parsed("2e-7").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("0.2us").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("0.2\u00b5s").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("200ns").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("0.1ms").first, 1e-4);
  EXPECT_DOUBLE_EQ(parsed("1e-6s").first, 1e-6);
  EXPECT_EQ(parsed("5%"), std::make_pair(0.05, true));  // a percentage implies relative
  EXPECT_EQ(parsed("0.05", true), std::make_pair(0.05, true));
  auto refused = [](const std::string& text, bool relative, bool absolute, const std::string& why) {
    Options o;
    o.relative = relative;
    try {
      cluster::parse_threshold(text, o, absolute);
      ADD_FAILURE() << text << " accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused("5%", false, true, "is a percentage; it cannot be --absolute");
  refused("1us", true, false, "has a time unit; it cannot be --relative");
  refused("3parsecs", false, false, "unknown unit 'parsecs'");
  refused("fast", false, false, "'fast' is not a number");
}

TEST(Commands, CompressAndDecompressCommands) {
  const fs::path dir = temp_dir("commands");
  const auto in = block_data(41, 6, 5);
  for (int r = 0; r < 6; ++r) in->mutable_info().meta.hosts.push_back("n" + std::to_string(r / 3));
  write_raw(dir / "run_median.nc", *in, true);
  cluster::CompressRequest r;
  r.o.relative = false;
  r.o.min_region = 1;
  EXPECT_THROW(cluster::compress_command(dir / "run_median.nc", dir / "c.nc", r), UsageError);  // no bound
  r.threshold = "0";
  r.absolute = true;
  r.o.relative = true;
  EXPECT_THROW(cluster::compress_command(dir / "run_median.nc", dir / "c.nc", r), UsageError);
  r.o.relative = false;
  const std::string line = cluster::compress_command(dir / "run_median.nc", dir / "c.nc", r);
  EXPECT_EQ(line.rfind((dir / "c.nc").string() + ": ", 0), 0u) << line;
  EXPECT_NE(line.find(" 0 values beyond the threshold"), std::string::npos) << line;
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);

  // Decompressed under a prefix: the statistic file and the hosts, values exact (threshold 0).
  const std::string back = cluster::decompress_file(dir / "c.nc", dir / "back", false);
  EXPECT_NE(back.find("6 ranks, 5 message lengths, hosts in"), std::string::npos) << back;
  const auto ds = open_dataset(dir / "back_median.nc");
  for (std::size_t k = 0; k < in->count(); ++k) EXPECT_EQ(ds->matrix(k), in->matrix(k));
  EXPECT_EQ(read_hosts(dir / "back_hosts.txt"), in->meta().hosts);
  // To a file name: no hosts file beside it.
  cluster::decompress_file(dir / "c.nc", dir / "one.nc", false);
  EXPECT_TRUE(fs::exists(dir / "one.nc"));
  EXPECT_FALSE(fs::exists(dir / "one.nc_hosts.txt"));
  // Refusals: an existing output, a raw input, the input itself.
  EXPECT_THROW(cluster::decompress_file(dir / "c.nc", dir / "back", false), FileError);
  EXPECT_THROW(cluster::decompress_file(dir / "run_median.nc", dir / "x", false), UsageError);
  EXPECT_FALSE(fs::exists(dir / "x_median.nc"));
  EXPECT_THROW(cluster::decompress_file(dir / "c.nc", dir / "c.nc", true), FileError);
  EXPECT_TRUE(fs::exists(dir / "c.nc"));
}

// ---- small inputs: the file is no larger than its input ---------------------------

// Two real runs of scripts/demo.sh's measurement (4 local ranks, one_to_one, 0..64 KiB step 8 KiB,
// 50 repeats; checked in: data/demo4_run*_median.nc), compressed as the demo does (5 %, relative):
// the clustered file is no larger than the raw input, keeps every rule, and reads back (it is the
// compact classic form, layout 1 when it has no residual, which every reader takes).
TEST(SmallInputs, DemoRunsAreNoLargerThanTheirInput) {
  const fs::path data = NT_CLUSTER_TEST_DATA;
  const fs::path dir = temp_dir("demo");
  for (const char* name : {"demo4_run1_median.nc", "demo4_run2_median.nc"}) {
    SCOPED_TRACE(name);
    const auto in = open_dataset(data / name);
    ASSERT_EQ(in->ranks(), 4);
    Options o;
    o.threshold = 0.05;
    o.relative = true;
    const fs::path out = dir / name;
    const auto rep = cluster::compress_file(data / name, out, o, true);
    EXPECT_LE(fs::file_size(out), fs::file_size(data / name));
    EXPECT_EQ(rep.clustered_bytes, fs::file_size(out));
    EXPECT_GE(rep.compression_ratio, 1.0);
    check_rules(*in, out, o);
    {
      const nc::File f = nc::File::open(out);
      EXPECT_EQ(f.kind(), nc::Kind::classic);
      // Without a residual the file is layout 1 and says so by having no version attribute.
      EXPECT_EQ(f.find_var("residual").has_value(), f.get_att_int(-1, "cluster_layout_version").has_value());
    }
    const auto s = cluster::summarize_file(out);
    EXPECT_EQ(s.file_bytes, fs::file_size(out));
    const std::string text = cluster::format_summary(s);
    EXPECT_EQ(text.find("nan"), std::string::npos) << text;
    EXPECT_EQ(cluster::compress_command(data / name, dir / "cmd.nc",
                                        {.o = o, .threshold = "5%", .target_ratio = 0, .absolute = false, .force = true})
                  .find("note:"),
              std::string::npos);
  }
}

// Noisy synthetic runs of 3 to 8 ranks and 9 to 17 lengths (shuffled placement, a slow node now and
// then, both threshold kinds). From 5 ranks the matrices outweigh the clustered layout's fixed
// header and the file is never larger than the input; below, noisy data at a tight bound may not
// cluster enough to pay for it, and compress then says so (never silently).
TEST(SmallInputs, NoisySmallRunsAreNoLargerThanTheirInputOrSaySo) {
  const fs::path dir = temp_dir("small");
  int larger = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed * 104729);
    SynthParams sp;
    const int P = 3 + static_cast<int>(rng() % 6);
    sp.nodes = P % 2 ? P : P / 2;
    sp.ranks_per_node = P / sp.nodes;
    sp.shuffle = rng() % 2;
    sp.cell_noise = rng() % 2 ? 0.01 : 0.05;
    sp.slow_node = rng() % 3 == 0 ? 0 : -1;
    sp.seed = seed;
    sp.lengths.clear();
    const int N = 9 + static_cast<int>(rng() % 9);
    for (int k = 0; k < N; ++k) sp.lengths.push_back(1024LL * k);
    const SynthResult syn = synthesize(sp);
    const auto& in = *syn.stats.at(Statistic::median);
    cluster::CompressRequest req;
    req.force = true;
    req.o.relative = rng() % 4 != 0;
    req.threshold = req.o.relative ? std::vector<std::string>{"1%", "5%", "10%"}[rng() % 3]
                                   : std::to_string(10 * (1 + rng() % 30)) + "ns";
    req.absolute = !req.o.relative;
    const fs::path raw = dir / ("in" + std::to_string(seed) + ".nc");
    const fs::path out = dir / ("out" + std::to_string(seed) + ".nc");
    write_raw(raw, in, true);
    const std::string line = cluster::compress_command(raw, out, req);
    const bool noted = line.find("note: ") != std::string::npos;
    EXPECT_EQ(noted, fs::file_size(out) > fs::file_size(raw)) << line;
    if (P >= 5) {
      EXPECT_LE(fs::file_size(out), fs::file_size(raw)) << P << " ranks x " << N << " lengths: " << line;
    }
    larger += noted;
    Options o = req.o;
    cluster::parse_threshold(req.threshold, o, req.absolute);
    check_rules(in, out, o);
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_LT(larger, 10);  // most small runs cluster enough
}
