#include "nt/types.hpp"

#include <array>

namespace nt {
namespace {

// Indexed by the legacy code (index 0 unused): the names files and command lines use.
constexpr std::array<std::string_view, 11> kModeNames{
    "",      "one_to_one", "all_to_all", "async_one_to_one", "send_recv_and_recv_send", "noise", "noise_blocking",
    "bcast", "put",        "get",        "loggp"};
constexpr std::array<std::string_view, 7> kStatNames{"", "average", "median", "deviation", "min", "max", "all"};

// The names of the original that we still accept.
struct Alias {
  std::string_view name;
  Mode mode;
};
constexpr std::array<Alias, 4> kModeAliases{{
    {"put_one_to_one", Mode::put},
    {"get_one_to_one", Mode::get},
    {"test_noise", Mode::noise},
    {"test_noise_blocking", Mode::noise_blocking},
}};

// The code whose name is `name` in `names`, or 0.
template <std::size_t N>
int code_of(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t c = 1; c < N; ++c)
    if (names[c] == name) return static_cast<int>(c);
  return 0;
}

template <std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, int code) {
  return code >= 1 && static_cast<std::size_t>(code) < N ? names[static_cast<std::size_t>(code)] : "unknown";
}

}  // namespace

std::string_view mode_name(Mode m) { return name_of(kModeNames, static_cast<int>(m)); }

std::optional<Mode> mode_from_name(std::string_view name) {
  if (const int c = code_of(kModeNames, name)) return static_cast<Mode>(c);
  for (const auto& a : kModeAliases)
    if (a.name == name) return a.mode;
  return std::nullopt;
}

std::optional<Mode> mode_from_code(int code) {
  if (code >= 1 && static_cast<std::size_t>(code) < kModeNames.size()) return static_cast<Mode>(code);
  return std::nullopt;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (std::size_t c = 1; c < kModeNames.size(); ++c) v.push_back(static_cast<Mode>(c));
  return v;
}

std::string_view statistic_name(Statistic s) { return name_of(kStatNames, static_cast<int>(s)); }

std::optional<Statistic> statistic_from_name(std::string_view name) {
  if (const int c = code_of(kStatNames, name)) return static_cast<Statistic>(c);
  return std::nullopt;
}

std::optional<Statistic> statistic_from_code(int code) {
  if (code >= 1 && static_cast<std::size_t>(code) < kStatNames.size()) return static_cast<Statistic>(code);
  return std::nullopt;
}

const std::vector<Statistic>& standard_statistics() {
  static const std::vector<Statistic> v{Statistic::average, Statistic::median, Statistic::min,
                                        Statistic::max, Statistic::deviation};
  return v;
}

bool diagonal_is_zero(Mode m) {
  switch (m) {
    case Mode::one_to_one:
    case Mode::send_recv_and_recv_send:
    case Mode::noise_blocking:
    case Mode::put:
    case Mode::get:
    case Mode::loggp:
      return true;
    default:
      return false;
  }
}

bool legacy_is_transposed(Mode m) { return m != Mode::send_recv_and_recv_send && m != Mode::put; }

}  // namespace nt
