// network_cluster: a thin main over nt_cluster (cluster/src/commands.cpp).
#include "nt/cli.hpp"
#include "nt/cluster/cluster.hpp"

int main(int argc, char** argv) {
  return nt::guarded_main("network_cluster", [&] { return nt::cluster::run(argc, argv); });
}
