// Exports other tools read: LogGOPSim parameters, a SimGrid platform (DTD version 4.1), CSV.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nt/analysis/models.hpp"
#include "nt/analysis/report.hpp"

namespace nt::analysis {

// "-L <ns> -o <ns> -g <ns> -G <ns/byte> -S <bytes>" (integers, as LogGOPSim's options take them)
// for the class that carries most traffic (the slowest present), with comment lines (#) above
// giving every class and the exact values.
std::string export_loggopsim(const std::vector<ClassParams>& params);

// A SimGrid platform: one host per node group (named after its host when the hosts agree),
// a private link per host (half the inter-node startup, its bandwidth), a loopback link per host
// (intra-node), a backbone link per upper-level group, Full routing with one route per host pair
// and per host (loopback). Per message length, SMPI's latency and bandwidth factors (and a sender's
// overhead) that give every route's measured median back: from `delays`, the cube r was made of.
std::string export_simgrid(const Report& r, const Cube& delays);

// One line per pair: sender,receiver,hosts,class, per range ts/tw/r2.
std::string export_csv(const Report& r);

enum class ExportFormat { json, loggopsim, simgrid, csv };
// The formats by name, in the order the help lists them.
const std::vector<std::pair<std::string, ExportFormat>>& export_formats();

struct ExportRequest {
  std::string delay_file;
  std::string loggp_file;  // measured LogGP parameters for loggopsim/json; "" = from the delays
  std::string hosts_file;
  ExportFormat format = ExportFormat::json;
};
// Analyses the delay file of the request and returns the export's text.
std::string make_export(const ExportRequest& req);
// The export of an analysed report (r.params already carry any measured LogGP parameters); simgrid
// needs the delays r was made of (nt::Error without them).
std::string export_text(const Report& r, ExportFormat format, const Cube* delays = nullptr);

}  // namespace nt::analysis
