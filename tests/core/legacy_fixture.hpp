// Builds legacy network_test2 files from the published layout (PARUS network_test2's
// data_write_operations: CDF-2; dimensions x, y, n (unlimited), strings(101); int scalars proc_num,
// test_type, data_type, begin_mes_length, end_mes_length, step_length, noise_mes_length,
// num_noise_mes, num_noise_proc, num_repeates; double data(n, x, y); no attributes, no
// format_version, no message_length). Row x of a stored matrix is the rank that measured.
// Used by the core, convert (and any other) tests: one writer of the old layout.
#pragma once

#include <filesystem>
#include <functional>

namespace nt::fixtures {

// Encodes (sender, receiver, k) into a distinct value so that orientation errors show:
// (k+1)*1e-3 + sender*1e-5 + receiver*1e-7; 0 on the diagonal.
double legacy_value(int sender, int receiver, int k);

struct LegacySpec {
  int ranks = 3;
  int test_type = 1;   // legacy code
  int data_type = 1;   // legacy code
  int begin = 0, step = 100, count = 3;
  int end = -1;        // end_mes_length as stored; -1: the last length, begin + (count-1)*step
  bool row_is_receiver = true;  // where the file's row index comes from
  int num_repeats = 10;
  bool classic = false;         // CDF-1 (the original's other format) instead of CDF-2
  // The value of sender -> receiver at matrix k.
  std::function<double(int sender, int receiver, int k)> value = legacy_value;
};

// Writes a legacy file as `spec` says.
void write_legacy_file(const std::filesystem::path& path, const LegacySpec& spec);

}  // namespace nt::fixtures
