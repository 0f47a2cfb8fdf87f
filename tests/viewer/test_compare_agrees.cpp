// network_analyze compare and the viewer's compare pair the same ranks (one rule,
// nt::match_hosts). On the same two files, for each of several placements, compare's common hosts
// with their ranks in each run give the expected pairs (the k-th rank of a host in one run with
// the k-th rank of that host in the other); the viewer's difference view must show, at every cell
// (i, j), the baseline's value minus the current run's value at exactly those partners, and no data
// where compare pairs no rank. Every cell of the current run has a value of its own, so a rank
// paired with another partner shows.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>

#include "fixtures.hpp"
#include "nt/analysis/compare.hpp"
#include "nt/viewer/document.hpp"

using namespace nt::viewer;
namespace fs = std::filesystem;

namespace {
const std::vector<std::int64_t> kLengths{0, 64, 1024, 4096, 16384, 65536};

// Hosts: `per[h]` ranks on host `names[h]`, placed block by block, or cyclically.
std::vector<std::string> placement(const std::vector<std::string>& names, const std::vector<int>& per, bool cyclic) {
  std::vector<std::string> out;
  if (!cyclic) {
    for (std::size_t h = 0; h < names.size(); ++h) out.insert(out.end(), static_cast<std::size_t>(per[h]), names[h]);
    return out;
  }
  for (int round = 0; out.size() < static_cast<std::size_t>(std::accumulate(per.begin(), per.end(), 0)); ++round)
    for (std::size_t h = 0; h < names.size(); ++h)
      if (round < per[h]) out.push_back(names[h]);
  return out;
}

// A run's delays: 0.5 us inside a host, 2 us between hosts, 1 GB/s; each cell scaled by a factor
// of its own (rank pair of `P`), so that no two cells of a run are equal.
double delay(const std::vector<std::string>& hosts, int i, int j, std::size_t k) {
  if (i == j) return 0.0;
  const auto P = static_cast<double>(hosts.size());
  const double base = (hosts[static_cast<std::size_t>(i)] == hosts[static_cast<std::size_t>(j)] ? 5e-7 : 2e-6) +
                      static_cast<double>(kLengths[k]) / 1e9;
  return base * (1.0 + 1e-3 * (i * P + j) / P);
}

fs::path write_run(const fs::path& path, const std::vector<std::string>& hosts, bool names_hosts) {
  return fixtures::exact_raw(path, static_cast<int>(hosts.size()), kLengths,
                             [&](int i, int j, std::size_t k) { return delay(hosts, i, j, k); }, nt::Statistic::median,
                             names_hosts ? std::optional(hosts) : std::optional(std::vector<std::string>{}));
}

// Compare's pairs: for every rank of the baseline, its partner in the current run or -1.
std::vector<int> compare_pairs(const nt::analysis::Comparison& c) {
  std::vector<int> partner(static_cast<std::size_t>(c.P_baseline), -1);
  for (std::size_t h = 0; h < c.hosts.size(); ++h)
    for (std::size_t k = 0; k < c.ranks_baseline[h].size() && k < c.ranks_current[h].size(); ++k)
      partner[static_cast<std::size_t>(c.ranks_baseline[h][k])] = c.ranks_current[h][k];
  return partner;
}
}  // namespace

class TestCompareAgrees : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_;

  // Both programs on the same two runs: the viewer's cells are the baseline minus compare's partners.
  void check_same_pairs(const std::string& name, const std::vector<std::string>& hosts_a,
                        const std::vector<std::string>& hosts_b, bool names_hosts = true) {
    const fs::path a = write_run(dir_ / (name + "_a_median.nc"), hosts_a, names_hosts);
    const fs::path b = write_run(dir_ / (name + "_b_median.nc"), hosts_b, names_hosts);
    const nt::analysis::Comparison c = nt::analysis::compare_runs(a.string(), b.string());
    QCOMPARE(c.by_host, names_hosts);
    const std::vector<int> partner = compare_pairs(c);
    auto doc = Document::open(a);
    doc->set_compare(b);
    const int P = doc->ranks();
    for (std::size_t k = 0; k < kLengths.size(); k += 5) {
      ViewSpec s;
      s.view = ViewKind::difference;
      s.k = k;
      const ViewResult r = doc->render(s);
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j) {
          if (i == j) continue;
          const double v = (*r.values)[static_cast<std::size_t>(i * P + j)];
          const int pi = partner[static_cast<std::size_t>(i)], pj = partner[static_cast<std::size_t>(j)];
          if (pi < 0 || pj < 0) {
            QVERIFY2(std::isnan(v), qPrintable(QStringLiteral("%1: cell %2,%3 has data").arg(name.c_str()).arg(i).arg(j)));
            continue;
          }
          const double expected = delay(hosts_a, i, j, k) - delay(hosts_b, pi, pj, k);
          QVERIFY2(std::abs(v - expected) <= 1e-9 * delay(hosts_a, i, j, k),
                   qPrintable(QStringLiteral("%1: cell %2,%3 is %4, compare pairs it with %5,%6 (%7)")
                                  .arg(name.c_str()).arg(i).arg(j).arg(v).arg(pi).arg(pj).arg(expected)));
        }
    }
  }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
  }

  // Another placement of the same hosts, and two more hosts in the current run.
  void otherPlacementMoreHosts() {
    check_same_pairs("cyclic", placement({"n0", "n1", "n2", "n3"}, {2, 2, 2, 2}, false),
                     placement({"n0", "n1", "n2", "n3", "n4", "n5"}, {2, 2, 2, 2, 2, 2}, true));
  }

  // As many ranks, half of them on other hosts: never paired by number.
  void sameCountHalfTheHosts() {
    check_same_pairs("half", placement({"n0", "n1", "n2", "n3"}, {2, 2, 2, 2}, false),
                     placement({"x0", "n1", "x2", "n3"}, {2, 2, 2, 2}, true));
  }

  // Hosts holding another number of ranks: the k-th rank of a host with the k-th there.
  void otherRankCountsPerHost() {
    check_same_pairs("per_host", placement({"n0", "n1", "n2", "n3"}, {3, 3, 3, 3}, false),
                     placement({"n0", "n1", "n2", "n3"}, {2, 3, 3, 4}, true));
  }

  // No host names in either run: both by rank number.
  void noHostNames() {
    const auto hosts = placement({"n0", "n1", "n2", "n3"}, {2, 2, 2, 2}, false);
    check_same_pairs("nameless", hosts, hosts, false);
  }
};

QTEST_MAIN(TestCompareAgrees)
#include "test_compare_agrees.moc"
