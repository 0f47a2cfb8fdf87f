// Writes the synthetic run the shell-level viewer tests open: <prefix>_*.nc, <prefix>_hosts.txt
// and <prefix>_groups.json (one group per node).
#include <fstream>
#include <iostream>

#include "fixtures.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: viewer_make_fixture DIR\n";
    return 2;
  }
  std::filesystem::create_directories(argv[1]);
  const std::string prefix = fixtures::synth_run(argv[1]);
  std::ofstream(prefix + "_groups.json") << R"({"groups": [[0, 1], [2, 3], [4, 5], [6, 7]]})" << '\n';
  std::cout << prefix << '\n';
  return 0;
}
