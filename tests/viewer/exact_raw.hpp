// A result file with exact values, written with the core library only: no Qt, so that the
// data-layer test (test_data.cpp, linked without Qt GUI) shares it with the Qt tests (fixtures.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nt/dataset.hpp"
#include "nt/raw_file.hpp"

namespace fixtures {

// A raw file with exact values: value(i, j, k) = f(i, j, k) in seconds; lengths as given.
// Hosts: node<i/2> for rank i, or `hosts` when given (an empty list: no hosts in the file).
template <class F>
std::filesystem::path exact_raw(const std::filesystem::path& path, int P, const std::vector<std::int64_t>& lengths,
                                F f, nt::Statistic stat = nt::Statistic::average,
                                const std::optional<std::vector<std::string>>& hosts = std::nullopt) {
  nt::FileInfo info;
  info.params.proc_num = P;
  info.params.statistic = stat;
  info.params.begin_length = static_cast<int>(lengths.front());
  info.params.end_length = static_cast<int>(lengths.back());
  info.params.num_repeats = 10;
  info.meta.sweep = "list";
  if (hosts) info.meta.hosts = *hosts;
  else
    for (int i = 0; i < P; ++i) info.meta.hosts.push_back("node" + std::to_string(i / 2));
  nt::MemoryDataset d(info);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    nt::Matrix m(P);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) m.at(i, j) = f(i, j, k);
    d.append(lengths[k], std::move(m));
  }
  nt::write_raw(path, d, true);
  return path;
}

}  // namespace fixtures
