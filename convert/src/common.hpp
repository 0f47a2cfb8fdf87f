// Helpers shared by the subcommand implementations.
#pragma once

#include <filesystem>
#include <string>

#include "nt/dataset.hpp"
#include "nt/params.hpp"

namespace nt::convert::detail {

// Streams every matrix of d into a raw CDF-2 file at `out` with the given parameters and
// metadata (written under a temporary name, renamed when complete).
void write_raw_stream(const std::filesystem::path& out, const Dataset& d, const FileInfo& info, bool force);

// "raw file", "legacy network_test2 file", ... for messages.
std::string describe_format(const Dataset& d);

}  // namespace nt::convert::detail
