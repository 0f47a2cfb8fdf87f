// network_convert: a thin main over nt_convert (convert/src/app.cpp).
#include "nt/cli.hpp"
#include "nt/convert/convert.hpp"

int main(int argc, char** argv) {
  return nt::guarded_main("network_convert", [&] { return nt::convert::run(argc, argv); });
}
