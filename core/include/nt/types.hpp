// Measurement modes and statistics, with the legacy network_test2 integer codes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nt {

// Values are the legacy `test_type` codes (share/doc/design.md §4); loggp is new. Every value
// has its row in kModeTable below.
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

// Everything the files and their readers know of a mode: its code, its name, the name of the
// original that is still accepted, and its orientation rules. network_test's mode table takes a
// mode's identity from here (network_test/include/nt/measure/mode.hpp, `identify`), so a new
// mode is its enum value, its row below and its file in network_test/modes/
// (share/doc/network_test.md, "Adding a mode").
struct ModeTraits {
  Mode mode;
  std::string_view name;   // the files' `mode` attribute, -t NAME, --mode NAME
  std::string_view alias;  // network_test2's name, also accepted ("" none)
  // Diagonal semantics (share/doc/design.md §3): (i,i) is 0 by definition.
  bool diagonal_zero;
  // Legacy files store row = the rank that measured: the receiver, except where the sender
  // measures (a ping-pong's initiator, put's origin). True: a legacy matrix is transposed.
  bool legacy_transposed;
};

// One row per mode, in code order.
inline constexpr std::array<ModeTraits, 10> kModeTable{{
    {Mode::one_to_one, "one_to_one", "", true, true},
    {Mode::all_to_all, "all_to_all", "", false, true},
    {Mode::async_one_to_one, "async_one_to_one", "", false, true},
    {Mode::send_recv_and_recv_send, "send_recv_and_recv_send", "", true, false},
    {Mode::noise, "noise", "test_noise", false, true},
    {Mode::noise_blocking, "noise_blocking", "test_noise_blocking", true, true},
    {Mode::bcast, "bcast", "", false, true},
    {Mode::put, "put", "put_one_to_one", true, false},
    {Mode::get, "get", "get_one_to_one", true, true},
    {Mode::loggp, "loggp", "", true, true},
}};

// The row of m; nullptr for a code no mode has.
const ModeTraits* mode_traits(Mode m);

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

// Diagonal semantics (share/doc/design.md §3): true when (i,i) is 0 by definition (kModeTable).
bool diagonal_is_zero(Mode m);

// True when a legacy matrix must be transposed to reach our orientation (kModeTable).
bool legacy_is_transposed(Mode m);

}  // namespace nt
