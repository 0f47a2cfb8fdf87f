// Placeholder until network_cluster's reader lands (owned by the cluster component).
#include "nt/clustered.hpp"

#include "nt/error.hpp"

namespace nt {

std::unique_ptr<Dataset> open_clustered(const std::filesystem::path& path) {
  throw FileError(path, "clustered files are not supported by this build yet");
}

}  // namespace nt
