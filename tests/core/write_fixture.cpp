// Writes a small synthetic run (4 nodes x 2 ranks, 4 lengths) for interoperability tests.
#include <iostream>

#include "nt/cli.hpp"
#include "nt/synth.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: nt_write_fixture PREFIX\n";
    return 2;
  }
  return nt::guarded_main("nt_write_fixture", [&] {
    nt::SynthParams p;
    p.lengths = {0, 100, 200, 300};
    nt::write_synth(argv[1], nt::synthesize(p), true);
    return 0;
  });
}
