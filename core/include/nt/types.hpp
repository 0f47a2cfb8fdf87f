// Measurement modes and statistics, with the legacy network_test2 integer codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nt {

// Values are the legacy `test_type` codes (share/doc/design.md §4); loggp is new.
enum class Mode : int {
  one_to_one = 1,
  all_to_all = 2,
  async_one_to_one = 3,
  send_recv_and_recv_send = 4,
  noise = 5,
  noise_blocking = 6,
  bcast = 7,
  put = 8,
  get = 9,
  loggp = 10,
};

// Values are the legacy `data_type` codes; 5 and up are new.
enum class Statistic : int {
  average = 1,
  median = 2,
  deviation = 3,
  min = 4,
  max = 5,
  all = 6,  // every sample (the _all.nc file)
};

std::string_view mode_name(Mode m);
// Accepts the canonical names and the original aliases (put_one_to_one, test_noise, ...).
std::optional<Mode> mode_from_name(std::string_view name);
std::optional<Mode> mode_from_code(int code);
std::vector<Mode> all_modes();

std::string_view statistic_name(Statistic s);
std::optional<Statistic> statistic_from_name(std::string_view name);
std::optional<Statistic> statistic_from_code(int code);
// The five per-statistic files every run writes, in a fixed order.
const std::vector<Statistic>& standard_statistics();

// Diagonal semantics (share/doc/design.md §3): true when (i,i) is 0 by definition.
bool diagonal_is_zero(Mode m);

// Legacy files store row = the rank that measured. That is the receiver for every mode except
// send_recv_and_recv_send (the ping-pong initiator measures) and put (the origin measures).
// Returns true when a legacy matrix must be transposed to reach our orientation.
bool legacy_is_transposed(Mode m);

}  // namespace nt
