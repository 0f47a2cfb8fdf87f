// Builds legacy network_test2 files from the published layout (PARUS network_test2's
// data_write_operations: CDF-2; dimensions x, y, n (unlimited), strings(101); int scalars proc_num,
// test_type, data_type, begin_mes_length, end_mes_length, step_length, noise_mes_length,
// num_noise_mes, num_noise_proc, num_repeates; double data(n, x, y); no attributes, no
// format_version, no message_length). Row x of a stored matrix is the rank that measured.
#pragma once

#include <filesystem>
#include <functional>

namespace nt::convert::testing {

struct LegacySpec {
  int ranks = 3;
  int test_type = 1;   // legacy code
  int data_type = 1;   // legacy code
  int begin = 0, step = 100, count = 3;
  bool row_is_receiver = true;  // where the file's row index comes from
  int num_repeats = 10;
};

// Encodes (sender, receiver, k) into a distinct value so that orientation errors show:
// (k+1)*1e-3 + sender*1e-5 + receiver*1e-7; 0 on the diagonal.
double legacy_value(int sender, int receiver, int k);

// Writes a legacy file; the value of the pair sender->receiver at matrix k is legacy_value().
void write_legacy_file(const std::filesystem::path& path, const LegacySpec& spec);

}  // namespace nt::convert::testing
