#include "nt/viewer/view_spec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace nt::viewer {
namespace {
// The command-line and GUI names of each choice, in the order the GUI lists them.
constexpr std::array<std::pair<ViewKind, std::string_view>, 7> kViews{
    {{ViewKind::matrix, "matrix"}, {ViewKind::row, "row"}, {ViewKind::column, "column"}, {ViewKind::pair, "pair"},
     {ViewKind::deviation, "deviation"}, {ViewKind::difference, "difference"}, {ViewKind::ratio, "ratio"}}};
constexpr std::array<std::pair<Normalize, std::string_view>, 3> kNorms{
    {{Normalize::matrix, "matrix"}, {Normalize::file, "file"}, {Normalize::window, "window"}}};
constexpr std::array<std::pair<Colormap, std::string_view>, 4> kMaps{
    {{Colormap::automatic, "auto"}, {Colormap::grey, "grey"}, {Colormap::viridis, "viridis"}, {Colormap::diverging, "diverging"}}};
constexpr std::array<std::pair<Order, std::string_view>, 3> kOrders{
    {{Order::rank, "rank"}, {Order::host, "host"}, {Order::groups, "groups"}}};
constexpr std::array<std::pair<Reduce, std::string_view>, 2> kReduces{{{Reduce::max, "max"}, {Reduce::median, "median"}}};
template <class T, std::size_t N>
std::string_view name_in(const std::array<std::pair<T, std::string_view>, N>& a, T v) {
  for (const auto& [k, n] : a)
    if (k == v) return n;
  return "?";
}
template <class T, std::size_t N>
std::optional<T> value_in(const std::array<std::pair<T, std::string_view>, N>& a, std::string_view s) {
  for (const auto& [k, n] : a)
    if (n == s) return k;
  return std::nullopt;
}
template <class T, std::size_t N>
std::vector<std::pair<std::string, T>> names_in(const std::array<std::pair<T, std::string_view>, N>& a) {
  std::vector<std::pair<std::string, T>> names;
  for (const auto& [k, n] : a) names.emplace_back(std::string(n), k);
  return names;
}
}  // namespace

std::vector<std::pair<std::string, ViewKind>> view_names() { return names_in(kViews); }
std::vector<std::pair<std::string, Normalize>> normalize_names() { return names_in(kNorms); }
std::vector<std::pair<std::string, Colormap>> colormap_names() {
  auto names = names_in(kMaps);
  names.emplace_back("gray", Colormap::grey);
  return names;
}
std::vector<std::pair<std::string, Order>> order_names() { return names_in(kOrders); }
std::vector<std::pair<std::string, Reduce>> reduce_names() { return names_in(kReduces); }

std::string_view colormap_name(Colormap c) { return name_in(kMaps, c); }
std::optional<Colormap> colormap_from_name(std::string_view s) {
  if (s == "gray") return Colormap::grey;
  return value_in(kMaps, s);
}
std::string_view order_name(Order o) { return name_in(kOrders, o); }
std::optional<Order> order_from_name(std::string_view s) { return value_in(kOrders, s); }

std::string_view reduce_name(Reduce r) { return name_in(kReduces, r); }
std::optional<Reduce> reduce_from_name(std::string_view s) { return value_in(kReduces, s); }

std::string_view view_name(ViewKind v) { return name_in(kViews, v); }
std::optional<ViewKind> view_from_name(std::string_view s) { return value_in(kViews, s); }
std::string_view normalize_name(Normalize n) { return name_in(kNorms, n); }
std::optional<Normalize> normalize_from_name(std::string_view s) { return value_in(kNorms, s); }

double Levels::darkness(double v) const {
  if (std::isnan(v)) return 0.0;
  double t;
  if (log && white > 0 && black > 0) {
    if (!(v > 0)) return 0.0;
    if (black == white) {
      t = v > white ? 1.0 : (v < white ? 0.0 : 0.5);
    } else {
      t = (std::log(v) - std::log(white)) / (std::log(black) - std::log(white));
    }
  } else if (black == white) {
    t = v > white ? 1.0 : (v < white ? 0.0 : 0.5);
  } else {
    t = (v - white) / (black - white);
  }
  return std::clamp(t, 0.0, 1.0);
}

unsigned char Levels::gray(double v) const {
  // Same rounding as the fast path of cells_image.
  return static_cast<unsigned char>(255 - static_cast<int>(255.0 * darkness(v) + 0.5));
}

}  // namespace nt::viewer
