// The hosts file: one hostname per line, in rank order.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace nt {

std::vector<std::string> read_hosts(const std::filesystem::path& path);
void write_hosts(const std::filesystem::path& path, const std::vector<std::string>& hosts, bool overwrite);
// One name a line, into any stream (e.g. an output under construction).
void write_hosts(std::ostream& out, const std::vector<std::string>& hosts);
// "<prefix>_hosts.txt" (ResultSet(prefix).hosts(); siblings of a file: ResultSet::of(file)).
std::filesystem::path hosts_path(const std::filesystem::path& prefix);

// Matches the ranks of run A to those of run B by host: the m-th rank (in rank order) on host h
// in A is the m-th rank on h in B. Returns, for every rank of A, its rank in B or -1 (host not
// in B, or fewer ranks on it there). Empty when either list is empty (no hosts known).
std::vector<int> match_ranks_by_host(const std::vector<std::string>& a, const std::vector<std::string>& b);
// Numbers names from 0 in order of first appearance, equal names the same number: the host (or
// machine) of every rank, given its name in rank order.
std::vector<int> number_by_first_appearance(const std::vector<std::string>& names);


}  // namespace nt
