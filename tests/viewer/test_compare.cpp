// Comparing runs: ranks matched by host across files of different shapes, difference and ratio
// views, the same pair from several files on one plot, and samples per cell in the hover data.
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "nt/viewer/document.hpp"
#include "fixtures.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"

using namespace nt::viewer;
namespace fs = std::filesystem;

namespace {
// Off-diagonal values of run A (8 ranks on node0..node3, two each).
double fa(int i, int j, std::size_t k) { return i == j ? 0.0 : 1e-6 * static_cast<double>(k + 1) * (1.0 + 0.1 * (i + j)); }

// Run B: 12 ranks, rank r on node (r % 6) -- a cyclic placement over six nodes, so the same host
// holds other rank numbers than in A. Local index of r on its node: r / 6.
std::vector<std::string> hostsB() {
  std::vector<std::string> h;
  for (int r = 0; r < 12; ++r) h.push_back("node" + std::to_string(r % 6));
  return h;
}
// The rank of A on the same host and local index as rank r of B, or -1 (nodes 4 and 5).
int aOfB(int r) {
  const int node = r % 6, local = r / 6;
  return node < 4 ? 2 * node + local : -1;
}
}  // namespace

class TestCompare : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_, a_, b_;

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
    a_ = fixtures::exact_raw(dir_ / "a_average.nc", 8, {8, 16, 32}, fa);
    // B is twice as fast as A on every link A has; other links are absurdly slow (1 ms), so a
    // wrong match shows as ratios far from 2.
    b_ = fixtures::exact_raw(dir_ / "b_average.nc", 12, {8, 32, 64}, [](int i, int j, std::size_t k) {
      const int ai = aOfB(i), aj = aOfB(j);
      const std::size_t ka = k == 0 ? 0 : 2;  // B's 8 and 32 are A's k = 0 and 2
      if (i == j) return 0.0;
      if (ai < 0 || aj < 0 || k == 2) return 1e-3;
      return 0.5 * fa(ai, aj, ka);
    }, nt::Statistic::average, hostsB());
  }

  void matchRanksByHost() {
    using By = nt::HostMatch::By;
    const auto m = nt::match_hosts({"x", "x", "y", "z"}, 4, {"y", "x", "q", "x"}, 4);
    QVERIFY(m.by == By::host);
    QCOMPARE(m.rank_map(), (std::vector<int>{1, 3, 0, -1}));
    QCOMPARE(m.common, (std::vector<std::string>{"x", "y"}));
    QCOMPARE(m.only_a, (std::vector<std::string>{"z"}));
    QCOMPARE(m.only_b, (std::vector<std::string>{"q"}));
    // More ranks on a host in A than in B: the extra ones are unmatched.
    QCOMPARE(nt::match_hosts({"x", "x", "x"}, 3, {"x"}, 1).rank_map(), (std::vector<int>{0, -1, -1}));
    // A run without host names: by number, and only when the rank counts agree.
    QVERIFY(nt::match_hosts({}, 1, {"x"}, 1).by == By::number);
    QCOMPARE(nt::match_hosts({}, 3, {}, 3).rank_map(), (std::vector<int>{0, 1, 2}));
    QCOMPARE(nt::match_hosts({}, 2, {"x", "y"}, 2).common, (std::vector<std::string>{"x", "y"}));
    QVERIFY(nt::match_hosts({}, 2, {"x", "y", "z"}, 3).by == By::none);
    QVERIFY(nt::match_hosts({"x"}, 2, {"x", "x"}, 2).by == By::number);  // one name for two ranks: no hosts
  }

  void differentShapesMatchedByHost() {
    auto doc = Document::open(a_);
    doc->set_compare(b_);
    QVERIFY2(QString::fromStdString(doc->compare_match()).contains(QStringLiteral("by host")), doc->compare_match().c_str());
    QVERIFY2(QString::fromStdString(doc->compare_match()).contains(QStringLiteral("2 of 3 lengths")), doc->compare_match().c_str());
    for (std::size_t k : {std::size_t(0), std::size_t(2)}) {
      ViewSpec s;
      s.view = ViewKind::ratio;
      s.k = k;
      const ViewResult r = doc->render(s);
      QCOMPARE(r.rows, 8);
      QVERIFY(r.ratio());
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
          if (i != j) QCOMPARE((*r.values)[static_cast<std::size_t>(i * 8 + j)], 2.0);
      // The ratio's levels are symmetric around 1 in log scale: 2 is darker than mid-grey.
      QVERIFY(r.levels.log);
      QCOMPARE(r.levels.white * r.levels.black, 1.0);
      s.view = ViewKind::difference;
      const ViewResult d = doc->render(s);
      QCOMPARE((*d.values)[1 * 8 + 6], fa(1, 6, k) - 0.5 * fa(1, 6, k));
      QVERIFY(d.title.contains(QStringLiteral("b_average.nc")));
    }
    // A length B does not hold: a clear refusal naming it, no silent zeros.
    ViewSpec s;
    s.view = ViewKind::difference;
    s.k = 1;
    const QString missing = fixtures::error_of([&] { doc->render(s); });
    QVERIFY2(missing.contains(QStringLiteral("holds no message length 16")), qPrintable(missing));
    // File-wide levels skip that length instead of failing.
    s.k = 0;
    s.normalize = Normalize::file;
    s.view = ViewKind::ratio;
    QCOMPARE(doc->render(s).levels.black, 2.0);
  }

  void partialMatchLeavesOthersEmpty() {
    // B as the primary: its ranks on node4/node5 have no counterpart in A.
    auto doc = Document::open(b_);
    doc->set_compare(a_);
    QVERIFY2(QString::fromStdString(doc->compare_match()).contains(QStringLiteral("8 of 12")), doc->compare_match().c_str());
    ViewSpec s;
    s.view = ViewKind::ratio;
    const ViewResult r = doc->render(s);
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        if (i == j) continue;
        const double v = (*r.values)[static_cast<std::size_t>(i * 12 + j)];
        if (aOfB(i) < 0 || aOfB(j) < 0) QVERIFY(std::isnan(v));
        else QCOMPARE(v, 0.5);
      }
  }

  void unmatchableRunsRefusedClearly() {
    auto doc = Document::open(a_);
    const auto other = fixtures::exact_raw(dir_ / "other_average.nc", 6, {8, 16}, fa, nt::Statistic::average,
                                           std::vector<std::string>{"c0", "c0", "c1", "c1", "c2", "c2"});
    const QString m = fixtures::error_of([&] { doc->set_compare(other); });
    QVERIFY2(m.contains(QStringLiteral("cannot be matched by host")) && m.contains(QStringLiteral("0 of the 8")), qPrintable(m));
    const auto nohosts = fixtures::exact_raw(dir_ / "nohosts_average.nc", 6, {8, 16}, fa, nt::Statistic::average,
                                             std::vector<std::string>{});
    const QString none = fixtures::error_of([&] { doc->set_compare(nohosts); });
    QVERIFY2(none.contains(QStringLiteral("nohosts_hosts.txt")), qPrintable(none));
    const auto nolength = fixtures::exact_raw(dir_ / "nolen_average.nc", 8, {100, 200}, fa);
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->set_compare(nolength));
    // A refused file leaves the document as it was: no compared file.
    QVERIFY(doc->compare() == nullptr);
  }

  // network_analyze compare's rule: ranks are matched by host; by number only when a run names no
  // hosts and the rank counts agree (with a note). Runs of as many ranks on other hosts are never
  // paired by number: that would compare links between different hosts.
  void sameCountOtherHostsMatchedByHostOnly() {
    auto doc = Document::open(a_);
    const auto elsewhere = fixtures::exact_raw(dir_ / "elsewhere_average.nc", 8, {8, 16}, fa, nt::Statistic::average,
                                               std::vector<std::string>{"x0", "x0", "x1", "x1", "x2", "x2", "x3", "x3"});
    const QString m = fixtures::error_of([&] { doc->set_compare(elsewhere); });
    QVERIFY2(m.contains(QStringLiteral("cannot be matched by host")) && m.contains(QStringLiteral("0 of the 8")), qPrintable(m));
    QVERIFY2(!m.contains(QStringLiteral("shapes differ")), qPrintable(m));
    QVERIFY(doc->compare() == nullptr);
    // Half the hosts in common: those ranks are matched by host, the others show no data.
    const auto half = fixtures::exact_raw(dir_ / "half_average.nc", 8, {8, 16}, [](int i, int j, std::size_t k) {
      return 0.5 * fa(i, j, k);
    }, nt::Statistic::average, std::vector<std::string>{"x0", "x0", "node1", "node1", "x2", "x2", "node3", "node3"});
    doc->set_compare(half);
    QVERIFY2(doc->compare_match().find("4 of 8") != std::string::npos, doc->compare_match().c_str());
    ViewSpec s;
    s.view = ViewKind::ratio;
    const ViewResult r = doc->render(s);
    const auto on_common_host = [](int rank) { return rank / 2 == 1 || rank / 2 == 3; };
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        if (i == j) continue;
        const double v = (*r.values)[static_cast<std::size_t>(i * 8 + j)];
        if (on_common_host(i) && on_common_host(j)) QCOMPARE(v, 2.0);
        else QVERIFY(std::isnan(v));
      }
    // No host names in one run and as many ranks: by number, with a note that says so.
    const auto nohosts = fixtures::exact_raw(dir_ / "nohosts8_average.nc", 8, {8, 16}, fa, nt::Statistic::average,
                                             std::vector<std::string>{});
    doc->set_compare(nohosts);
    QVERIFY2(doc->compare_match().find("matched by number (no host names: the placement may differ)") != std::string::npos,
             doc->compare_match().c_str());
  }

  void samePairFromSeveralFiles() {
    auto doc = Document::open(a_);
    doc->add_plot_file(b_);
    ViewSpec s;
    s.view = ViewKind::pair;
    s.sender = 0;
    s.receiver = 3;  // node0 -> node1 (local 1): in B ranks 0 -> 7
    const ViewResult r = doc->render(s);
    QCOMPARE(r.curves.size(), std::size_t(2));
    QCOMPARE(r.curves[1].sender, 0);
    QCOMPARE(r.curves[1].receiver, 7);
    QVERIFY(r.curves[1].label.contains(QStringLiteral("b_average.nc")));
    QCOMPARE(r.curves[1].lengths, (std::vector<std::int64_t>{8, 32, 64}));
    QCOMPARE(r.curves[1].y[0], 0.5 * fa(0, 3, 0));
    QCOMPARE(r.curves[0].y[2], fa(0, 3, 2));
    // A window of lengths clips every file's curve.
    s.k0 = 0;
    s.k1 = 2;  // 8 .. 16 B
    QCOMPARE(doc->render(s).curves[1].lengths, (std::vector<std::int64_t>{8}));
    s.k1 = 0;
    // Before/after runs with the same file name: the legend tells them apart by folder.
    fs::create_directories(dir_ / "before");
    fs::create_directories(dir_ / "after");
    auto before = Document::open(fixtures::exact_raw(dir_ / "before" / "run_average.nc", 8, {8, 16}, fa));
    before->add_plot_file(fixtures::exact_raw(dir_ / "after" / "run_average.nc", 8, {8, 16}, fa));
    s.sender = 0;
    s.receiver = 3;
    const ViewResult ba = before->render(s);
    QVERIFY2(ba.curves[0].label.startsWith(QStringLiteral("before/run_average.nc")), qPrintable(ba.curves[0].label));
    QVERIFY2(ba.curves[1].label.startsWith(QStringLiteral("after/run_average.nc")), qPrintable(ba.curves[1].label));
    QCOMPARE(ba.curves[1].source, 1);
    before->set_compare(dir_ / "after" / "run_average.nc");
    ViewSpec rs;
    rs.view = ViewKind::ratio;
    QVERIFY2(before->render(rs).title.startsWith(QStringLiteral("before/run_average.nc / after/run_average.nc")),
             qPrintable(before->render(rs).title));
    // A pair on a host B lacks and outside B's ranks by number is refused with both named.
    auto big = Document::open(b_);
    big->add_plot_file(fixtures::exact_raw(dir_ / "small_average.nc", 4, {8}, fa, nt::Statistic::average,
                                           std::vector<std::string>{"z0", "z0", "z1", "z1"}));
    s.sender = 10;
    s.receiver = 11;
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, big->render(s));
  }

  void samplesPerCell() {
    // A statistic file with sample_count (network_test --precision).
    nt::FileInfo info;
    info.params.proc_num = 3;
    info.params.statistic = nt::Statistic::median;
    info.params.begin_length = 0;
    info.params.end_length = 64;
    info.params.num_repeats = 100;
    const fs::path path = dir_ / "prec_median.nc";
    {
      nt::RawWriter w(path, info, true, 0, nt::RecordExtras{true, false});
      for (int k = 0; k < 2; ++k) {
        std::vector<double> v(9, 1e-6);
        std::vector<int> c(9);
        for (int i = 0; i < 9; ++i) c[static_cast<std::size_t>(i)] = 10 * (k + 1) + i;
        w.append(k * 64, v, c);
      }
      w.close();
    }
    auto doc = Document::open(path);
    ViewSpec s;
    s.k = 1;
    const ViewResult m = doc->render(s);
    QVERIFY(m.samples);
    QCOMPARE((*m.samples)[1 * 3 + 2], 25);
    s.view = ViewKind::pair;
    s.sender = 2;
    s.receiver = 0;
    const ViewResult p = doc->render(s);
    QCOMPARE(p.curves[0].samples, (std::vector<int>{16, 26}));
    // Files without the variable have no samples to show.
    auto plain = Document::open(a_);
    QVERIFY(!plain->render(ViewSpec{}).samples);
  }
};

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
