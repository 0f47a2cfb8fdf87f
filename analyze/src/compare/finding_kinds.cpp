// The names of the kinds of compare's findings (compare.hpp): what its text, JSON, HTML and
// Prometheus outputs say (name_of), and the families of kinds.
#include "nt/analysis/compare.hpp"

namespace nt::analysis {

const Names<FindingKind>& finding_kind_names() {
  using K = FindingKind;
  static const Names<FindingKind> names{{"node_slower", K::node_slower},
                                        {"node_faster", K::node_faster},
                                        {"link_slower", K::link_slower},
                                        {"link_faster", K::link_faster},
                                        {"intra_node_slower", K::intra_node_slower},
                                        {"intra_node_faster", K::intra_node_faster},
                                        {"switch_link_slower", K::switch_link_slower},
                                        {"switch_link_faster", K::switch_link_faster},
                                        {"switch_slower", K::switch_slower},
                                        {"switch_faster", K::switch_faster},
                                        {"class_slower", K::class_slower},
                                        {"class_faster", K::class_faster},
                                        {"threshold_changed", K::threshold_changed},
                                        {"node_moved", K::node_moved},
                                        {"node_missing", K::node_missing},
                                        {"node_added", K::node_added},
                                        {"topology_changed", K::topology_changed}};
  return names;
}

std::string name_of(FindingKind kind) { return nt::name_of(finding_kind_names(), kind); }

std::optional<FindingKind> finding_kind(const std::string& name) { return value_of(finding_kind_names(), name); }

bool is_class_change(FindingKind kind) { return kind == FindingKind::class_slower || kind == FindingKind::class_faster; }

bool is_link_change(FindingKind kind) { return kind == FindingKind::link_slower || kind == FindingKind::link_faster; }

bool is_host_change(FindingKind kind) {
  return !is_class_change(kind) && kind != FindingKind::threshold_changed && kind != FindingKind::topology_changed;
}

}  // namespace nt::analysis
