#include "nt/types.hpp"

#include <array>
#include <utility>

namespace nt {
namespace {

struct ModeName {
  Mode mode;
  std::string_view name;
};

// Canonical names first; the aliases of the original follow.
constexpr std::array<ModeName, 14> kModeNames{{
    {Mode::one_to_one, "one_to_one"},
    {Mode::all_to_all, "all_to_all"},
    {Mode::async_one_to_one, "async_one_to_one"},
    {Mode::send_recv_and_recv_send, "send_recv_and_recv_send"},
    {Mode::noise, "noise"},
    {Mode::noise_blocking, "noise_blocking"},
    {Mode::bcast, "bcast"},
    {Mode::put, "put"},
    {Mode::get, "get"},
    {Mode::loggp, "loggp"},
    {Mode::put, "put_one_to_one"},
    {Mode::get, "get_one_to_one"},
    {Mode::noise, "test_noise"},
    {Mode::noise_blocking, "test_noise_blocking"},
}};

constexpr std::array<std::pair<Statistic, std::string_view>, 6> kStatNames{{
    {Statistic::average, "average"},
    {Statistic::median, "median"},
    {Statistic::deviation, "deviation"},
    {Statistic::min, "min"},
    {Statistic::max, "max"},
    {Statistic::all, "all"},
}};

}  // namespace

std::string_view mode_name(Mode m) {
  for (const auto& e : kModeNames)
    if (e.mode == m) return e.name;
  return "unknown";
}

std::optional<Mode> mode_from_name(std::string_view name) {
  for (const auto& e : kModeNames)
    if (e.name == name) return e.mode;
  return std::nullopt;
}

std::optional<Mode> mode_from_code(int code) {
  if (code >= 1 && code <= 10) return static_cast<Mode>(code);
  return std::nullopt;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (int c = 1; c <= 10; ++c) v.push_back(static_cast<Mode>(c));
  return v;
}

std::string_view statistic_name(Statistic s) {
  for (const auto& [st, name] : kStatNames)
    if (st == s) return name;
  return "unknown";
}

std::optional<Statistic> statistic_from_name(std::string_view name) {
  for (const auto& [st, n] : kStatNames)
    if (n == name) return st;
  return std::nullopt;
}

std::optional<Statistic> statistic_from_code(int code) {
  if (code >= 1 && code <= 6) return static_cast<Statistic>(code);
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
