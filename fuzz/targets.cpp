// libFuzzer targets for the suite's readers (one source, one target per NT_FUZZ_TARGET):
//   raw        any bytes as a file, opened by content (classic CDF header walk, RawReader)
//   legacy     the same, seeded with network_test2 files (format_version 0, transposed rows)
//   text       any bytes through the text reader, from memory and as a file (the two must agree)
//   clustered  fuzz bytes become the arrays of a well-formed NetCDF-4 clustered file (region
//              starts, offsets, values, lengths), so that our reader's checks are fuzzed and not
//              HDF5's own parser (which has known crashes on corrupt HDF5 files)
// A reader may refuse an input with nt::Error (exit 2 in the programs); any other exception,
// crash, leak or sanitizer report is a bug. Every accepted input is read through every access
// path (matrix, row, column, pair, value).
#include <fcntl.h>
#include <netcdf.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "nt/clustered.hpp"
#include "nt/dataset.hpp"
#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/text_format.hpp"
#include "nt/validate.hpp"

namespace fs = std::filesystem;

namespace {

void touch(const nt::Dataset& d) {
  const int P = d.ranks();
  const std::size_t n = d.count();
  if (P <= 0 || P > 64) return;  // the readers bound P; the fuzzer only needs small ones touched
  volatile double sink = 0;
  for (std::size_t k = 0; k < n && k < 16; ++k) {
    const nt::Matrix m = d.matrix(k);
    sink = sink + m.at(0, P - 1);
  }
  if (n > 0) {
    sink = sink + d.row(0, 0, n).size() + d.column(P - 1, 0, n).size() + d.pair(0, P - 1).size();
    sink = sink + d.value(P - 1, 0, n - 1);
  }
  (void)nt::scan_values(d).total();
}

// The one scratch file of this process, removed at exit.
struct Scratch {
  fs::path path;
  ~Scratch() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

[[maybe_unused]] const fs::path& scratch(const char* name) {
  static const Scratch s{fs::temp_directory_path() / (std::string("nt_fuzz_") + name + "_" + std::to_string(::getpid()))};
  return s.path;
}

[[maybe_unused]] void write_bytes(const fs::path& p, const std::uint8_t* data, std::size_t size) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t w = ::write(fd, data + done, size - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  ::close(fd);
}

// Reads values off the fuzz input, zero when it runs out.
struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() { return n ? (--n, *p++) : 0; }
  std::int32_t i32() {
    std::int32_t v = 0;
    for (int b = 0; b < 4; ++b) v = static_cast<std::int32_t>((static_cast<std::uint32_t>(v) << 8) | u8());
    return v;
  }
  double f64() {
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v = (v << 8) | u8();
    double d;
    std::memcpy(&d, &v, sizeof d);
    return d;
  }
};

[[maybe_unused]] void clustered_from_bytes(const fs::path& path, Bytes in) {
  const std::size_t P = 1 + in.u8() % 6, N = in.u8() % 6, R = in.u8() % 6, D = in.u8() % 40;
  nt::FileInfo info;
  info.params.proc_num = static_cast<int>(P);
  info.meta.format_version = nt::kFormatVersion;
  auto f = nt::nc::File::create(path, nt::nc::Kind::netcdf4, true);
  nt::write_file_info(f, info);
  const int dx = f.def_dim("x", P), di = f.def_dim("i", N), dn = f.def_dim("n", std::nullopt),
            dd = f.def_dim("d", std::nullopt);
  const int vml = f.def_var("message_length", NC_INT, {di});
  const int vinfo = f.def_var("info", NC_INT, {dn, dx, dx});
  const int vlen = f.def_var("length", NC_INT, {dn});
  const int vdata = f.def_var("data", NC_DOUBLE, {dd});
  f.put_att(NC_GLOBAL, "file_kind", std::string("clustered"));
  f.put_att(NC_GLOBAL, "cluster_layout_version", static_cast<int>(in.u8() % 3));
  f.enddef();
  std::vector<int> ml(N), st(R), offs(R * P * P);
  std::vector<double> data(D);
  for (auto& v : ml) v = in.u8() % 2 ? in.i32() : static_cast<int>(in.u8()) * 64;
  for (auto& v : st) v = in.u8() % 2 ? in.i32() : in.u8() % 8;
  for (auto& v : offs) v = in.u8() % 4 == 0 ? in.i32() : in.u8() % 48;
  for (auto& v : data) v = in.u8() % 4 == 0 ? in.f64() : 1e-6 * in.u8();
  if (N) f.put(vml, {0}, {N}, ml.data());
  if (R) {
    f.put(vlen, {0}, {R}, st.data());
    f.put(vinfo, {0, 0, 0}, {R, P, P}, offs.data());
  }
  if (D) f.put(vdata, {0}, {D}, data.data());
  f.close();
}

// The text readers: the bytes from memory (read_text, every value held) and as a file through
// open_dataset (TextDataset: one checking pass, then rows parsed on demand). Both follow one set
// of rules, so they must accept the same inputs and give the same values: a difference aborts.
[[maybe_unused]] void text_both_ways(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<nt::MemoryDataset> mem;
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    mem = nt::read_text(in, "fuzz.txt");
    touch(*mem);
  } catch (const nt::Error&) {
  }
  if (!mem) return;
  const fs::path& p = scratch("text");
  write_bytes(p, data, size);
  if (!nt::looks_like_text(p)) return;  // open_dataset tells formats by a stricter look at the start
  std::unique_ptr<nt::Dataset> file;
  try {
    file = nt::open_dataset(p);
    touch(*file);
  } catch (const nt::Error& e) {
    std::fprintf(stderr, "text read from memory but refused as a file: %s\n", e.what());
    std::abort();
  }
  if (file->lengths() != mem->lengths() || file->ranks() != mem->ranks()) std::abort();
  const int P = mem->ranks();
  if (P > 64) return;
  for (std::size_t k = 0; k < mem->count() && k < 16; ++k) {
    const auto a = mem->matrix(k).values(), b = file->matrix(k).values();
    if (a.size() != b.size() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) != 0) {
      std::fprintf(stderr, "text: matrix %zu differs between the memory and the file reader\n", k);
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
#if defined(NT_FUZZ_TEXT)
    text_both_ways(data, size);
#elif defined(NT_FUZZ_CLUSTERED)
    const fs::path& p = scratch("clustered");
    clustered_from_bytes(p, Bytes{data, size});
    const auto d = nt::open_dataset(p);
    touch(*d);
#else  // raw and legacy: bytes as a file, opened by content
    if (size == 0) return 0;
#ifndef NT_FUZZ_REPLAY
    // Mutated HDF5 containers exercise HDF5's own parser, which has known crashes on corrupt
    // files; the fuzzers leave them out (the replayed corpus keeps NetCDF-4 reproducers).
    static const std::uint8_t hdf5[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    if (size >= 8 && std::memcmp(data, hdf5, 8) == 0) return 0;
#endif
    const fs::path& p = scratch(NT_FUZZ_NAME);
    write_bytes(p, data, size);
    const auto d = nt::open_dataset(p);
    touch(*d);
#endif
  } catch (const nt::Error&) {
    // refused with a message: what the programs turn into exit code 2
  }
  return 0;
}
