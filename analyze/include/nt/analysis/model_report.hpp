// `network_analyze model`: LogP/LogGP parameters per class and collective predictions, as a value
// that the program prints (text) or writes (JSON), and that the unit tests check.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nt/analysis/cube.hpp"
#include "nt/analysis/models.hpp"
#include "nt/analysis/topology.hpp"
#include "nt/loggp.hpp"

namespace nt::analysis {

// Hockney textbook collectives and the reduce of seed 000 at one length.
struct CollectiveRow {
  std::int64_t length = 0;
  double allgather_ring = 0, allgather_mesh = 0, allgather_hypercube = 0;
  double alltoall_ring = 0, alltoall_mesh = 0, alltoall_hypercube = 0;
  double allreduce_hypercube = 0, scatter_gather = 0;
  double reduce_binomial_logp_root = 0;
  int reduce_kchain_k = 1;
  double reduce_kchain = 0;
};

struct ModelReport {
  Topology topology;                  // of the delays (or of the loggp file's PRTT(1,0,s) data)
  std::vector<ClassParams> params;    // per class present
  std::string prediction_class;       // the class whose parameters drive the predictions
  int processes = 0;                  // P of the bcast run, else of the delays
  std::vector<BcastRow> bcast;        // per length
  std::vector<CollectiveRow> collectives;
  std::vector<std::string> notes;     // e.g. the warning that the node level cannot be identified
};

// The class named `which` ("" or "auto": the coarsest class present); a UsageError naming the
// classes present when there is no such class.
const ClassParams& pick_class(const std::vector<ClassParams>& params, const std::string& which);

// The model from a delay cube (or the cube of a loggp file), the loggp data when measured, and the
// measured bcast cube when given. `hosts` (one per rank, or empty) only decides whether the node
// level is known (see check_node_level).
ModelReport make_model(const Cube& delays, const LoggpData* loggp, const Cube* bcast, const std::string& which_class,
                       const ModelOptions& opt, const std::vector<std::string>& hosts = {});

struct ModelRequest {
  std::string delay_file;  // optional when loggp_file is given
  std::string loggp_file;
  std::string bcast_file;
  std::string class_name;  // "" = the coarsest class present
  std::string hosts_file;
  ModelOptions options;
};
// Opens the files of the request (bad input: nt::Error with the file named) and makes the model.
ModelReport make_model(const ModelRequest& req);

nlohmann::json to_json(const ModelReport& m);
std::string to_text(const ModelReport& m);

}  // namespace nt::analysis
