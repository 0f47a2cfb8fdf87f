#include "legacy_fixture.hpp"

#include <netcdf.h>  // type and dimension constants only

#include <vector>

#include "nt/netcdf.hpp"

namespace nt::fixtures {

double legacy_value(int sender, int receiver, int k) {
  if (sender == receiver) return 0.0;
  return (k + 1) * 1e-3 + sender * 1e-5 + receiver * 1e-7;
}

void write_legacy_file(const std::filesystem::path& path, const LegacySpec& s) {
  auto f = nc::File::create(path, s.classic ? nc::Kind::classic : nc::Kind::cdf2, /*overwrite=*/true);
  const auto P = static_cast<std::size_t>(s.ranks);
  const int x = f.def_dim("x", P);
  const int y = f.def_dim("y", P);
  const int n = f.def_dim("n", std::nullopt);
  f.def_dim("strings", 101);
  const std::pair<const char*, int> scalars[] = {
      {"proc_num", s.ranks},         {"test_type", s.test_type},
      {"data_type", s.data_type},    {"begin_mes_length", s.begin},
      {"end_mes_length", s.end >= 0 ? s.end : s.begin + (s.count - 1) * s.step},
      {"step_length", s.step},       {"noise_mes_length", 0},
      {"num_noise_mes", 0},          {"num_noise_proc", 0},
      {"num_repeates", s.num_repeats}};
  std::vector<std::pair<int, int>> ids;
  for (const auto& [name, v] : scalars) ids.emplace_back(f.def_var(name, NC_INT, {}), v);
  const int data = f.def_var("data", NC_DOUBLE, {n, x, y});
  f.enddef();
  for (const auto& [id, v] : ids) f.put(id, {}, {}, &v);
  std::vector<double> m(P * P);
  for (int k = 0; k < s.count; ++k) {
    for (int row = 0; row < s.ranks; ++row)
      for (int col = 0; col < s.ranks; ++col) {
        const int sender = s.row_is_receiver ? col : row;
        const int receiver = s.row_is_receiver ? row : col;
        m[static_cast<std::size_t>(row) * P + static_cast<std::size_t>(col)] = s.value(sender, receiver, k);
      }
    f.put(data, {static_cast<std::size_t>(k), 0, 0}, {1, P, P}, m.data());
  }
  f.close();
}

}  // namespace nt::fixtures
