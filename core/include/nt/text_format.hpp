// The original network_test2 text format, read and written at full precision.
//
// Header lines `processors N`, `test type "..."`, `data type "..."`, `begin message length B`,
// `end message length E`, `step length S`, `noise message length L`, `number of noise messages M`,
// `number of noise processes P`, `number of repeates R`, `hosts:` and one host per line; then per
// length a line `Message length B` followed by N lines of N tab-separated values. Values are
// written with 17 significant digits (the original's %f lost everything below a microsecond) and
// read back bit-exactly. Matrices in text files are in our orientation (row = sender).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <memory>

#include "nt/dataset.hpp"

namespace nt {

std::unique_ptr<MemoryDataset> read_text(const std::filesystem::path& path);
std::unique_ptr<MemoryDataset> read_text(std::istream& in, const std::filesystem::path& name);
void write_text(const std::filesystem::path& path, const Dataset& d, bool overwrite);
void write_text(std::ostream& out, const Dataset& d);
// True when the file starts like a text result file.
bool looks_like_text(const std::filesystem::path& path);

}  // namespace nt
