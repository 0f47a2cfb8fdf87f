#include "nt/schedule.hpp"

#include <charconv>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/error.hpp"
#include "nt/params.hpp"

namespace nt {

const Names<Rounds>& rounds_names() {
  static const Names<Rounds> names{{"random", Rounds::random}, {"fixed", Rounds::fixed}};
  return names;
}

std::string Schedule::name() const {
  switch (kind) {
    case ScheduleKind::sequential: return "sequential";
    case ScheduleKind::host_pairs: return by_switch ? "host-pairs by switch" : "host-pairs";
    case ScheduleKind::sampled: return by_switch ? "sampled by switch" : "sampled";
    case ScheduleKind::concurrent: break;
  }
  if (by_switch) return "concurrent by switch";
  return pairs_at_once > 0 ? fmt::format("concurrent={}", pairs_at_once) : "concurrent";
}

namespace {

// What runs at once in a concurrent schedule's rounds.
std::string at_once_text(const Schedule& s) {
  if (s.by_switch)
    return fmt::format("{} (--switch-map {}): per sample a random 1-factorisation of the switches; "
                       "each pair of switches a lane whose pairs run one after the other, the lanes at once: one "
                       "pair at a time crosses each switch's uplinks; then the pairs within each switch (one after "
                       "the other, every switch at once) and within the hosts",
                       kLanesBySwitch, s.switch_map);
  if (s.pairs_at_once > 0)
    return fmt::format("{} lanes: per sample a random partition of the hosts (of the ranks when each host runs "
                       "one) into 2K groups and a random 1-factorisation of the groups; each pair of groups a lane "
                       "whose pairs run one after the other, the lanes at once: at most {} pairs at once, one per "
                       "host; then the pairs within the groups and within the hosts",
                       s.pairs_at_once, s.pairs_at_once);
  return "every pair of a round at once";
}

std::string concurrent_text(const Schedule& s) {
  if (s.rounds == Rounds::fixed)
    return fmt::format("concurrent: the circle method's rounds, the same for every sample{}; {} (loaded network)",
                       s.shuffle ? ", in an order shuffled per length from the seed" : "", at_once_text(s));
  return fmt::format("concurrent: per sample a random 1-factorisation (circle method on a permutation of the ranks "
                     "and an order of the rounds drawn with splitmix64 from the seed, the length index and the "
                     "sample); {} (loaded network)",
                     at_once_text(s));
}

constexpr const char* kShuffledOrder = "shuffled per length from the seed";

std::string sampled_text(const Sampling& s) {
  return fmt::format(
      "sampled host pairs: the pairs within each host (every host at once, one pair after the other), then one rank "
      "pair of each sampled pair of hosts alone, one after the other, both ways or one exchange (rank (B + k) mod n_A of host A with "
      "rank (A + k) mod n_B of host B, k the length's index); the hosts numbered in order of first appearance over "
      "the ranks, the sampled pairs are those of {} landmark hosts (spread evenly over the numbers from an offset "
      "drawn from seed {}) with every host, of every host with the next {} hosts, and of every host with {} partners "
      "drawn at random from the seed (splitmix64): the same pairs at every length; every other cell between two "
      "sampled hosts holds the statistics of its host pair's measured cell and no samples of its own; the cells "
      "between hosts not sampled are missing",
      s.landmarks, s.seed, s.neighbours, s.partners);
}

}  // namespace

std::string Schedule::pair_order_text() const {
  switch (kind) {
    case ScheduleKind::concurrent: return concurrent_text(*this);
    case ScheduleKind::host_pairs: return by_switch ? fmt::format(kHostLanesOrder, switch_map) : kHostPairsOrder;
    case ScheduleKind::sampled:
      return by_switch ? sampled_text(sample) + fmt::format("; the sampled host pairs in {} (--switch-map {}), as "
                                                            "--host-pairs --switch-map runs its host pairs",
                                                            kLanesBySwitch, switch_map)
                       : sampled_text(sample);
    case ScheduleKind::sequential: break;
  }
  return shuffle ? kShuffledOrder : "sender-major";
}

std::string Schedule::retest_text() const {
  const std::string hosts =
      "per length, one rank pair of every pair of hosts (of the host pair's ranks, by the other host's number and "
      "the length) measured again alone, one pair after the other, with the same samples; every cell between two "
      "hosts has the isolated values of its host pair's re-tested cell (the one with the smallest isolated median)";
  if (!retest.by_budget()) return hosts + " (variable isolated)";
  std::string budget;
  if (retest.pairs > 0) budget = fmt::format("at most {} pairs", retest.pairs);
  if (retest.seconds > 0) budget += fmt::format("{}at most {} s", budget.empty() ? "" : " and ", retest.seconds);
  return fmt::format("per length, the cells whose loaded median is above {} x the median of their line, highest "
                     "ratio first, {}: measured again alone, one pair after the other, with the same samples "
                     "(variable isolated; missing where not re-tested)",
                     retest.ratio, budget) +
         (retest.hosts ? "; before them, " + hosts : std::string());
}

namespace {

// A file name as one token of the attribute: bytes other than these as %XX.
std::string encode(const std::string& path) {
  std::string out;
  for (const unsigned char ch : path) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                       std::string_view("/._,:+@~-").find(static_cast<char>(ch)) != std::string_view::npos;
    out += plain ? std::string(1, static_cast<char>(ch)) : fmt::format("%{:02X}", ch);
  }
  return out;
}

[[noreturn]] void malformed(const std::string& text, const std::string& why) {
  throw Error(fmt::format("attribute {} '{}': {}", kAttrSchedule, text, why));
}

std::string decode(const std::string& token, const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '%') {
      out += token[i];
      continue;
    }
    unsigned value = 0;
    const char* first = token.data() + i + 1;
    if (i + 2 >= token.size() || std::from_chars(first, first + 2, value, 16).ptr != first + 2)
      malformed(text, "a bad %XX in '" + token + "'");
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

template <class T>
T number(const std::string& value, const std::string& key, const std::string& text) {
  T v{};
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec != std::errc() || ptr != end) malformed(text, fmt::format("{}={} is not a number", key, value));
  return v;
}

std::vector<int> numbers(const std::string& value, const std::string& text) {
  std::vector<int> out;
  for (std::size_t at = 0; at <= value.size();) {
    std::size_t comma = value.find(',', at);
    if (comma == std::string::npos) comma = value.size();
    out.push_back(number<int>(value.substr(at, comma - at), "switches", text));
    at = comma + 1;
  }
  return out;
}

}  // namespace

std::string Schedule::to_attribute() const {
  std::string out = concurrent() && pairs_at_once > 0 ? fmt::format("concurrent={}", pairs_at_once)
                    : concurrent()                    ? std::string("concurrent")
                    : host_pairs()                    ? std::string("host-pairs")
                    : sampled()                       ? std::string("sampled")
                                                      : name();
  if (sampled())
    out += fmt::format(" partners={} landmarks={} neighbours={} seed={}", sample.partners, sample.landmarks,
                       sample.neighbours, sample.seed);
  if (shuffle) out += " shuffle";
  if (concurrent()) out += " rounds=" + name_of(rounds_names(), rounds);
  if (by_switch) {
    out += " switch-map=" + encode(switch_map);
    if (!switches.empty()) out += fmt::format(" switches={}", fmt::join(switches, ","));
  }
  if (!concurrent() || !retest.any()) return out;
  if (retest.pairs > 0) out += fmt::format(" retest={}", retest.pairs);
  if (retest.seconds > 0) out += fmt::format(" retest-seconds={}", retest.seconds);
  if (retest.hosts) out += " retest-hosts";
  return out + fmt::format(" retest-ratio={}", retest.ratio);
}

namespace {

// One token after the kind: key or key=value into s.
void read_token(Schedule& s, const std::string& token, const std::string& text) {
  const auto eq = token.find('=');
  const std::string key = token.substr(0, eq), value = eq == std::string::npos ? "" : token.substr(eq + 1);
  if (token == "shuffle") s.shuffle = true;
  else if (token == "retest-hosts") s.retest.hosts = true;
  else if (eq == std::string::npos) malformed(text, "unknown word '" + token + "'");
  else if (key == "rounds") {
    const auto r = value_of(rounds_names(), value);
    if (!r) malformed(text, "rounds=" + value + " is not random or fixed");
    s.rounds = *r;
  } else if (key == "switch-map") {
    s.by_switch = true;
    s.switch_map = decode(value, text);
  } else if (key == "switches") s.switches = numbers(value, text);
  else if (key == "retest") s.retest.pairs = number<int>(value, key, text);
  else if (key == "retest-seconds") s.retest.seconds = number<double>(value, key, text);
  else if (key == "retest-ratio") s.retest.ratio = number<double>(value, key, text);
  else if (key == "partners") s.sample.partners = number<int>(value, key, text);
  else if (key == "landmarks") s.sample.landmarks = number<int>(value, key, text);
  else if (key == "neighbours") s.sample.neighbours = number<int>(value, key, text);
  else if (key == "seed") s.sample.seed = number<std::uint64_t>(value, key, text);
  else malformed(text, "unknown word '" + key + "'");
}

}  // namespace

Schedule Schedule::from_attribute(const std::string& text) {
  std::vector<std::string> tokens;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t space = text.find(' ', at);
    if (space == std::string::npos) space = text.size();
    tokens.push_back(text.substr(at, space - at));
    at = space + 1;
  }
  Schedule s;
  const std::string& kind = tokens.front();
  if (kind == "sequential") s.kind = ScheduleKind::sequential;
  else if (kind == "host-pairs") s.kind = ScheduleKind::host_pairs;
  else if (kind == "concurrent") s.kind = ScheduleKind::concurrent;
  else if (kind == "sampled") s.kind = ScheduleKind::sampled;
  else if (kind.rfind("concurrent=", 0) == 0) {
    s.kind = ScheduleKind::concurrent;
    s.pairs_at_once = number<int>(kind.substr(11), "concurrent", text);
    if (s.pairs_at_once < 1) malformed(text, "concurrent=K needs K >= 1");
  } else
    malformed(text, "unknown schedule '" + kind + "'");
  for (std::size_t i = 1; i < tokens.size(); ++i) read_token(s, tokens[i], text);
  if (!s.concurrent() && s.retest.any()) malformed(text, "re-tests belong to a concurrent schedule");
  if (s.sequential() && (s.by_switch || !s.switches.empty()))
    malformed(text, "lanes by switch belong to a concurrent, host-pairs or sampled schedule");
  if (s.sampled() && (s.sample.partners < 0 || s.sample.landmarks < 0 || s.sample.neighbours < 0))
    malformed(text, "a sampled schedule's partners, landmarks and neighbours are not negative");
  return s;
}

namespace {

// The number N of the first "at most N pairs at once" in text; 0 without one.
int pairs_at_once_in(const std::string& text) {
  const std::string_view before = "at most ", after = " pairs at once";
  for (std::size_t at = text.find(before); at != std::string::npos; at = text.find(before, at + 1)) {
    const char* first = text.data() + at + before.size();
    const char* end = text.data() + text.size();
    int k = 0;
    const auto [ptr, ec] = std::from_chars(first, end, k);
    if (ec == std::errc() && ptr != first && std::string_view(ptr, static_cast<std::size_t>(end - ptr)).starts_with(after))
      return k;
  }
  return 0;
}

// The switch map's file of a pair_order in lanes by switch: the text between its opening and the
// last `close` (the prose after the file never says it again, the file's name may); empty where
// it has none.
std::string switch_map_in(const std::string& order, const std::string& close) {
  const std::string open = std::string(kLanesBySwitch) + " (--switch-map ";
  const auto from = order.find(open), to = order.rfind(close);
  if (from == std::string::npos || to == std::string::npos || to <= from + open.size()) return {};
  return order.substr(from + open.size(), to - from - open.size());
}

// The schedule a pair_order of an earlier version says: its first words for --host-pairs,
// "concurrent" anywhere for the concurrent ones.
Schedule from_pair_order(const std::string& order) {
  Schedule s;
  if (order.rfind("host pairs:", 0) == 0) {
    s.kind = ScheduleKind::host_pairs;
    s.by_switch = order.find(kLanesBySwitch) != std::string::npos;
    if (s.by_switch) s.switch_map = switch_map_in(order, "): per length");
    return s;
  }
  if (order.find("concurrent") == std::string::npos) {
    s.shuffle = order == kShuffledOrder;
    return s;
  }
  s.kind = ScheduleKind::concurrent;
  if (order.find("the circle method's rounds, the same for every sample") != std::string::npos) {
    s.rounds = Rounds::fixed;
    s.shuffle = order.find(", in an order shuffled per length from the seed") != std::string::npos;
  }
  if (order.find(kLanesBySwitch) != std::string::npos) {
    s.by_switch = true;
    s.switch_map = switch_map_in(order, "): per sample");
    return s;
  }
  s.pairs_at_once = pairs_at_once_in(order);
  return s;
}

}  // namespace

std::optional<Schedule> schedule_of(const Metadata& m) {
  if (const auto it = m.extra.find(kAttrSchedule); it != m.extra.end()) return Schedule::from_attribute(it->second);
  if (const auto it = m.extra.find(kAttrPairOrder); it != m.extra.end()) return from_pair_order(it->second);
  return std::nullopt;
}

bool measured_concurrently(const Metadata& m) {
  const auto s = schedule_of(m);
  return s && s->concurrent();
}

bool filled_by_host_pair(const Metadata& m) {
  const auto s = schedule_of(m);
  return s && s->host_pairs();
}

bool sampled_pairs(const Metadata& m) {
  const auto s = schedule_of(m);
  return s && s->sampled();
}

}  // namespace nt
