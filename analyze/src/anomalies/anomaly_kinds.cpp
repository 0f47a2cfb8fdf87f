// The names of the kinds of anomalies (anomalies.hpp): what the text, JSON, HTML and Prometheus
// outputs say (name_of), and the families of kinds.
#include "nt/analysis/anomalies.hpp"

namespace nt::analysis {

const Names<AnomalyKind>& anomaly_kind_names() {
  using K = AnomalyKind;
  static const Names<AnomalyKind> names{
      {"slow_rank", K::slow_rank},         {"slow_node", K::slow_node},       {"slow_link", K::slow_link},
      {"slow_switch", K::slow_switch},     {"asymmetric_pair", K::asymmetric_pair},
      {"half_duplex", K::half_duplex},     {"high_variance", K::high_variance}, {"contention", K::contention},
      {"unexplained", K::unexplained}};
  return names;
}

std::string name_of(AnomalyKind kind) { return nt::name_of(anomaly_kind_names(), kind); }

std::optional<AnomalyKind> anomaly_kind(const std::string& name) { return value_of(anomaly_kind_names(), name); }

bool is_slow(AnomalyKind kind) {
  return kind == AnomalyKind::slow_rank || kind == AnomalyKind::slow_node || kind == AnomalyKind::slow_link ||
         kind == AnomalyKind::slow_switch;
}

}  // namespace nt::analysis
