// Helpers shared by the subcommand implementations.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

#include "nt/dataset.hpp"
#include "nt/output.hpp"
#include "nt/params.hpp"

namespace nt::convert::detail {

// Streams every matrix of d into a raw CDF-2 file being written (an output of an OutputSet, or
// a PendingOutput committed by the caller) with the given parameters and metadata.
void write_raw_stream(PendingOutput& out, const Dataset& d, const FileInfo& info);

// Writes a raw CDF-2 file of P ranks with `info` into `out` (an output of an OutputSet), record
// by record, each record block of rows by block of rows: fill(k, r0, r1, rows) puts rows [r0, r1)
// of record k ([x*P + y] from row r0) into `rows`. Same bytes as RawWriter::append of whole
// matrices (RawRowWriter's promise); memory: one block. `block` rows per block (1..P).
void write_raw_rows(PendingOutput& out, const FileInfo& info, const std::vector<std::int64_t>& lengths, int P,
                    int block, const std::function<void(std::size_t, int, int, std::vector<double>&)>& fill);

// Rows per block when streaming d: about 1 MB of doubles, at least one row; a whole matrix for
// a NetCDF-4 copy, whose one chunk per matrix would be decompressed again for every block.
int block_rows(const Dataset& d);

// The parameters and metadata an output written from d carries: current format version, and
// statistic `median` for an _all input (its readers yield the median over each cell's samples).
FileInfo output_info(const Dataset& d);

// Writes what `body` writes to `out` through the output discipline (nothing under the final name
// unless complete), or to standard output when `out` is empty or "-" and `stdout_ok`, where a
// failed write (a full disk, a closed pipe) is an error too. `in`: the input (never overwritten).
void emit(const std::filesystem::path& in, const std::filesystem::path& out, bool force, bool stdout_ok,
          const std::function<void(std::ostream&)>& body);

// "raw file", "legacy network_test2 file", ... for messages.
std::string describe_format(const Dataset& d);

}  // namespace nt::convert::detail
