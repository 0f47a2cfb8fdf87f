#include "nt/params.hpp"

#include <algorithm>
#include <stdexcept>

namespace nt {

TestParameters run_parameters(int proc_num, Mode mode, const std::vector<std::int64_t>& lengths, int repeats,
                              int step) {
  if (lengths.empty()) throw std::invalid_argument("run_parameters: no message lengths");
  TestParameters p;
  p.proc_num = proc_num;
  p.mode = mode;
  p.begin_length = static_cast<int>(lengths.front());
  p.end_length = static_cast<int>(lengths.back());
  p.step_length = step;
  p.num_repeats = repeats;
  return p;
}

int linear_step(const std::vector<std::int64_t>& lengths) {
  if (lengths.size() < 2) return 0;
  const std::int64_t step = lengths[1] - lengths[0];
  if (step <= 0) return 0;
  for (std::size_t k = 1; k < lengths.size(); ++k)
    if (lengths[k] - lengths[k - 1] != step) return 0;
  return static_cast<int>(step);
}

std::string oversubscribed_text(const std::string& mode, int ranks, int P) {
  return mode + ": " + std::to_string(ranks) + " of " + std::to_string(P) + " ranks";
}

int oversubscribed_ranks(const Metadata& m) {
  const auto it = m.extra.find(kAttrOversubscribed);
  if (it == m.extra.end()) return 0;
  const auto colon = it->second.find(": ");
  if (colon == std::string::npos) return 0;
  try {
    return std::max(0, std::stoi(it->second.substr(colon + 2)));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace nt
