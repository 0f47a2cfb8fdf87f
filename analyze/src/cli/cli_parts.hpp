// What the subcommands of network_analyze (analyze/src/cli/cli_*.cpp) share: their output files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nt::analysis {

// text to stdout when path is "" or "-", else to the file (atomically; an existing one only with force).
void write_out(const std::string& path, const std::string& text, bool force);
// The JSON (one space of indent) to path ("-": stdout); nothing when path is "".
void write_json(const std::string& path, const nlohmann::json& j, bool force);
// Checked before the (possibly long) analysis: the output may be written, and is no input.
void check_out(const std::string& path, bool force, const std::vector<std::filesystem::path>& inputs);

}  // namespace nt::analysis
