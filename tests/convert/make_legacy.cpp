// Test helper: writes a legacy network_test2 file (see legacy_fixture.hpp).
// make_legacy OUT.nc TEST_TYPE ROW_IS_RECEIVER(0|1)
#include <cstdlib>
#include <iostream>

#include "legacy_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: make_legacy OUT.nc TEST_TYPE ROW_IS_RECEIVER\n";
    return 2;
  }
  nt::fixtures::LegacySpec s;
  s.test_type = std::atoi(argv[2]);
  s.row_is_receiver = std::atoi(argv[3]) != 0;
  nt::fixtures::write_legacy_file(argv[1], s);
  return 0;
}
