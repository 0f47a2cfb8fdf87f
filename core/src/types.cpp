#include "nt/types.hpp"

#include <array>

namespace nt {
namespace {

// The table is indexed by code - 1.
constexpr bool table_in_code_order() {
  for (std::size_t i = 0; i < kModeTable.size(); ++i)
    if (static_cast<std::size_t>(kModeTable[i].mode) != i + 1) return false;
  return true;
}
static_assert(table_in_code_order(), "kModeTable: one row per Mode, in code order from 1");

constexpr std::array<std::string_view, 7> kStatNames{"", "average", "median", "deviation", "min", "max", "all"};

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

const ModeTraits* mode_traits(Mode m) {
  const auto code = static_cast<std::size_t>(static_cast<int>(m));  // a negative code wraps beyond the table
  return code >= 1 && code <= kModeTable.size() ? &kModeTable[code - 1] : nullptr;
}

std::string_view mode_name(Mode m) {
  const ModeTraits* t = mode_traits(m);
  return t ? t->name : "unknown";
}

std::optional<Mode> mode_from_name(std::string_view name) {
  for (const auto& t : kModeTable)
    if (t.name == name) return t.mode;
  for (const auto& t : kModeTable)
    if (!t.alias.empty() && t.alias == name) return t.mode;
  return std::nullopt;
}

std::optional<Mode> mode_from_code(int code) {
  const auto m = static_cast<Mode>(code);
  if (mode_traits(m)) return m;
  return std::nullopt;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (const auto& t : kModeTable) v.push_back(t.mode);
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
  const ModeTraits* t = mode_traits(m);
  return t && t->diagonal_zero;
}

bool legacy_is_transposed(Mode m) {
  const ModeTraits* t = mode_traits(m);
  return !t || t->legacy_transposed;
}

}  // namespace nt
