// Delays measured under load (network_test --concurrent): what the anomalies may read from them.
// Under load a pair's delay is its own plus its round's
// contention, which is heavy-tailed (a round that puts more pairs on one uplink): the tails of a
// pair's loaded delays stand many robust sigmas out of their class without any fault. So a pair
// finding (slow link, one-way pair) from loaded delays is kept only when the isolated re-test
// (--retest) confirms it; the rest is contention and is said as such, once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nt/analysis/anomalies.hpp"
#include "nt/isolated.hpp"

namespace nt::analysis {

// Whether the cube's file was measured with --concurrent (pairs shared the network).
bool measured_under_load(const Cube& c);
// Whether it was measured with network_test --concurrent --switch-map (its schedule's lanes by
// switch): no two pairs at once crossed one switch's links.
bool lanes_by_switch(const Cube& c);

// Under load (c the values the findings came from): slow nodes that are slow to every other node
// but not to each other (their delays between them min_ratio faster than to the rest) are one
// group behind one uplink or switch: one slow_switch finding with their ranks instead of one
// slow_node each. Under load the switch level may be lost, while this shape stays (the leaf of a
// saturated or slow uplink, what mpiGraph's picture shows as one block).
void saturated_groups(const Cube& c, const std::vector<std::string>& hosts, double min_ratio, std::vector<Anomaly>& out);

// For a cube measured under load whose file holds the isolated re-test (--retest): the same file
// with every re-tested cell at its isolated value and, where `deviation` (the spread of the loaded
// samples) says a cell not re-tested has samples further apart than 2 % of its value or 3x the
// re-tested cells' median spread, no value (nt::IsolatedWhereRetested): what the groups, findings
// and fits read (the isolated values for faults and topology, the loaded ones for contention; a
// loaded cell that no round left alone is no pair's delay). Null otherwise.
std::shared_ptr<const IsolatedWhereRetested> isolated_where_retested(const Cube& c, const Cube* deviation);

// For a cube measured under load (c: the loaded values; the findings may come from the merged
// cube of isolated_where_retested): the slow links and one-way pairs that the isolated values of the
// file confirm stay (their detail says so); the others are replaced by one finding of kind
// "contention" with their pairs, which also says how much the load moved each class (the spread of
// a pair's samples from `deviation`, and loaded / isolated of the re-tested pairs). It is made
// when there are such pairs or the spread is contention's (10 % or more); slow switch groups are
// said to be slow or saturated first. Returns the report's note on the load (a WARNING when the
// spread is contention's), nothing for a file measured sequentially.
// merged: the values of isolated_where_retested the topology and findings came from, or null.
std::optional<std::string> review_findings_under_load(const Cube& c, const IsolatedWhereRetested* merged,
                                                      const Cube* deviation,
                                                      const Topology& t, const AnomalyOptions& opt,
                                                      std::vector<Anomaly>& out);

}  // namespace nt::analysis
