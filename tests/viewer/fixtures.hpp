// Small result files for the viewer tests, written with the core library.
#pragma once

#include <QColor>
#include <QImage>
#include <QString>
#include <QTemporaryDir>

#include <netcdf.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "exact_raw.hpp"
#include "pixels.hpp"
#include "nt/dataset.hpp"
#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/synth.hpp"
#include "nt/text_format.hpp"

namespace fixtures {

// 4 nodes x 2 ranks, node 2 (ranks 4 and 5) three times slower; lengths 0..16 KiB; small noise.
// Writes <dir>/run_{average,median,min,max,deviation}.nc and run_hosts.txt; returns the prefix.
inline std::string synth_run(const std::filesystem::path& dir, int slow_node = 2, double noise = 0.02) {
  nt::SynthParams p;
  p.nodes = 4;
  p.ranks_per_node = 2;
  p.slow_node = slow_node;
  p.slow_factor = 3.0;
  p.noise = noise;
  p.repeats = 6;
  p.lengths = {0, 1024, 4096, 16384};
  const auto r = nt::synthesize(p);
  const std::string prefix = (dir / "run").string();
  nt::write_synth(prefix, r, true);
  return prefix;
}

// A legacy network_test2 one_to_one file: stored rows are receivers. Our orientation is
// value(sender i, receiver j, k) = f(i, j, k).
template <class F>
std::filesystem::path legacy_raw(const std::filesystem::path& path, int P, int begin, int step, int records, F f) {
  auto file = nt::nc::File::create(path, nt::nc::Kind::classic, true);
  const int n = file.def_dim("n", std::nullopt);
  const int x = file.def_dim("x", static_cast<std::size_t>(P));
  const int y = file.def_dim("y", static_cast<std::size_t>(P));
  const std::pair<const char*, int> scalars[] = {
      {"proc_num", P}, {"test_type", 1}, {"data_type", 1}, {"begin_mes_length", begin},
      {"end_mes_length", begin + step * (records - 1)}, {"step_length", step}, {"noise_mes_length", 0},
      {"num_noise_mes", 0}, {"num_noise_proc", 0}, {"num_repeates", 100}};
  std::vector<int> ids;
  for (const auto& s : scalars) ids.push_back(file.def_var(s.first, NC_INT, {}));
  const int data = file.def_var("data", NC_DOUBLE, {n, x, y});
  file.enddef();
  for (std::size_t i = 0; i < ids.size(); ++i) file.put(ids[i], {}, {}, &scalars[i].second);
  for (int k = 0; k < records; ++k) {
    std::vector<double> m(static_cast<std::size_t>(P * P));
    for (int row = 0; row < P; ++row)      // row = receiver (the rank that measured)
      for (int col = 0; col < P; ++col)    // col = sender
        m[static_cast<std::size_t>(row * P + col)] = f(col, row, static_cast<std::size_t>(k));
    file.put(data, {static_cast<std::size_t>(k), 0, 0},
             {1, static_cast<std::size_t>(P), static_cast<std::size_t>(P)}, m.data());
  }
  file.close();
  return path;
}

// The message of the error of type E that f() throws, or "(no error)" when it throws none, for
// checks like QVERIFY2(error_of([&] { ... }).contains("diagonal"), ...).
template <class E = nt::UsageError, class F>
QString error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return QString::fromUtf8(e.what());
  }
  return QStringLiteral("(no error)");
}

// What a killed run leaves: a raw file whose parameters plan a sweep (linear from `begin` by
// `step` to `end`, or a list/geometric one with step 0 that ends at `end`) but which holds only
// the records of `written` (value 1 us per off-diagonal cell, k-fold at the k-th length).
inline std::filesystem::path killed_run(const std::filesystem::path& path, int P, int begin, int step, int end,
                                        const std::vector<std::int64_t>& written) {
  nt::FileInfo info;
  info.params.proc_num = P;
  info.params.statistic = nt::Statistic::median;
  info.params.begin_length = begin;
  info.params.end_length = end;
  info.params.step_length = step;
  info.params.num_repeats = 10;
  info.meta.sweep = step > 0 ? "linear" : "geometric";
  nt::RawWriter w(path, info, true);
  for (std::size_t k = 0; k < written.size(); ++k) {
    std::vector<double> v(static_cast<std::size_t>(P * P), 1e-6 * static_cast<double>(k + 1));
    for (int i = 0; i < P; ++i) v[static_cast<std::size_t>(i * P + i)] = 0.0;
    w.append(written[k], v);
  }
  w.close();
  return path;
}

}  // namespace fixtures
