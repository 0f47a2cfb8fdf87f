#include <system_error>

#include "nt/clustered.hpp"
#include "nt/dataset.hpp"
#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/output.hpp"
#include "nt/raw_file.hpp"
#include "nt/text_format.hpp"

namespace fs = std::filesystem;

namespace nt {

std::unique_ptr<Dataset> open_dataset(const fs::path& path) {
  // A set of outputs whose commit a killed run left half done is completed first, so that the
  // file and its siblings (hosts, other statistics) belong to one run.
  recover_interrupted_outputs(path.has_parent_path() ? path.parent_path() : fs::path("."));
  std::error_code ec;
  if (!fs::exists(path, ec)) throw FileError(path, "no such file");
  if (fs::is_directory(path, ec)) throw FileError(path, "is a directory, not a result file");
  if (fs::file_size(path, ec) == 0) throw FileError(path, "is empty");
  switch (nc::sniff(path)) {
    case nc::Magic::cdf1:
    case nc::Magic::cdf2:
    case nc::Magic::cdf5: {
      // network_cluster writes tiny clustered files as classic CDF-2 (smaller than NetCDF-4 there).
      bool clustered = false;
      try {
        const nc::File f = nc::File::open(path);
        clustered = f.find_var("info").has_value() && f.find_var("length").has_value();
      } catch (const std::exception&) {
        // The raw reader below names what is wrong with the file.
      }
      if (clustered) return open_clustered(path);
      return std::make_unique<RawReader>(path);
    }
    case nc::Magic::hdf5: {
      bool clustered = false;
      {
        const nc::File f = nc::File::open(path);
        clustered = f.find_var("info").has_value() && f.find_var("length").has_value();
      }
      if (clustered) return open_clustered(path);
      return std::make_unique<RawReader>(path);
    }
    case nc::Magic::none:
      break;
  }
  if (looks_like_text(path)) return std::make_unique<TextDataset>(path);
  throw FileError(path, "not a result file of this suite (neither NetCDF nor the text format)");
}

}  // namespace nt
