// Cost models from MODELS.md: Hockney textbook collectives, LogP/LogGP, the optimal LogP broadcast
// tree and summation of Karp et al. (seed 001), binomial-tree and k-chain reduce (seed 000).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nt/loggp.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/topology.hpp"

namespace nt::analysis {

// ---- Integer LogP (cycles), exactly as in seed 001 -------------------------------------------
// f_n for n = 0..T: processors reachable by a broadcast in n cycles.
std::vector<long long> reach_counts(int T, int L, int o, int g);
// Least T with f_T >= P.
int optimal_broadcast_time(int P, int L, int o, int g);

struct TreeNode {
  int proc = 0;       // processor number (root 0), Theorem 3 / Definition 3 numbering
  int time = 0;       // T_i: time left when the node has the message ("effective time")
  int label = 0;      // when it has the message: T - T_i
  int parent = -1;    // index into the node vector
  std::vector<int> children;  // indices, in sending order
};
// T*(P; L, o, g): the first P nodes, in preorder, of OBT(f_T; L, o, g).
std::vector<TreeNode> optimal_broadcast_tree(int P, int L, int o, int g);

struct Summation {
  int T_broadcast = 0;             // T of S*(P; L, o, g) = T*(P; L+1, o, g)
  long long operands_in_T = 0;     // N_S = sum T_i - oP + o + 1
  long long time = 0;              // T_B + ceil((N - N_S) / P) (N_S >= N: T_B)
  std::vector<TreeNode> tree;
};
// Optimal summation of N operands on S*(P; L, o, g).
Summation optimal_summation(long long N, int P, int L, int o, int g);

// ---- Real-valued LogP / LogGP (seconds) -----------------------------------------------------
struct LogGP {
  double L = 0, o = 0, g = 0, G = 0;  // G: seconds per byte
  // The LogP parameters seen by an m-byte message: L + (m-1)G and g + (m-1)G.
  double L_eff(double m) const { return L + (m > 1 ? (m - 1) * G : 0.0); }
  double g_eff(double m) const { return g + (m > 1 ? (m - 1) * G : 0.0); }
  double message(double m) const { return L_eff(m) + 2 * o; }
};
// Broadcast time on the optimal tree for real parameters (P smallest labels of the infinite
// tree, built with a min-heap).
double optimal_broadcast_time_real(int P, double L, double o, double g);
// Labels (arrival times) of the P nodes of that tree, in order of arrival; parent index per node.
std::vector<std::pair<double, int>> optimal_broadcast_labels(int P, double L, double o, double g);

double logp_binomial_bcast(int P, const LogGP& p, double m);   // ceil(log P) rounds of max(L+2o, g)
double logp_flat_bcast(int P, const LogGP& p, double m);       // L + 2o + (P-2) max(g, o)
double logp_optimal_bcast(int P, const LogGP& p, double m);

// Binomial-tree reduce at the root, commutative (seed 000); lambda = copy one byte,
// gamma = reduce one byte.
double logp_binomial_reduce_root(int P, const LogGP& p, double m, double lambda, double gamma);

// k-chain (seed 000): t(k) = ((P-1)/k + 1) a + (k-1) b.
double kchain_time(int k, int P, double a, double b);
double kchain_k_star(int P, double a, double b);       // sqrt(a (P-1) / b)
int kchain_optimal_k(int P, double a, double b);       // integer argmin of kchain_time over 1..P-1
int kchain_recommended_k(int P);                       // ceil(sqrt(P-1)): the seed's rule k* >= sqrt(P-1)
double kchain_optimal_time(int P, double a, double b); // 2 sqrt(ab) sqrt(P-1) + a - b

// ---- Hockney textbook collectives (seed 004) --------------------------------------------------
struct Hockney {
  double ts = 0, tw = 0;
  double message(double m) const { return ts + m * tw; }
};
double hockney_bcast_binomial(int P, const Hockney& h, double m);       // log p (ts + m tw)
double hockney_bcast_flat(int P, const Hockney& h, double m);           // (p-1)(ts + m tw)
double hockney_allgather_ring(int P, const Hockney& h, double m);       // (p-1)(ts + m tw)
double hockney_allgather_mesh(int P, const Hockney& h, double m);       // 2 ts (sqrt p - 1) + tw m (p-1)
double hockney_allgather_hypercube(int P, const Hockney& h, double m);  // ts log p + tw m (p-1)
double hockney_alltoall_ring(int P, const Hockney& h, double m);        // (ts + tw m p/2)(p-1)
double hockney_alltoall_mesh(int P, const Hockney& h, double m);        // (2 ts + tw m p)(sqrt p - 1)
double hockney_alltoall_hypercube(int P, const Hockney& h, double m);   // (ts + tw m)(p-1)
double hockney_allreduce_hypercube(int P, const Hockney& h, double m);  // (ts + tw m) log p
double hockney_scatter(int P, const Hockney& h, double m);              // ts log p + tw m (p-1)

// ---- Parameters per class -----------------------------------------------------------------------
struct ClassParams {
  int cls = 0;
  std::string name;
  double t0 = 0;                 // median delay at the smallest length: L + 2o
  std::int64_t t0_length = 0;
  std::vector<RangeFit> hockney; // per range
  bool have_loggp = false;
  LogGP loggp;                   // measured (have_loggp) or assumed from t0
  // Measured overheads (medians of the loggp file). loggp.o is the one o of LogP: (o_s + o_r) / 2
  // when measured, so that L + 2o is the one-way delay L + o_s + o_r; given (--o) or assumed 0
  // otherwise.
  double o_s = 0;
  double o_r = 0;
  // false when the loggp data could not tell L from o_r (the receive overhead held the transfer:
  // nt::loggp_separability, for most of the class's pairs): then `L_plus_o_r` is what was
  // measured, loggp.L = L_plus_o_r - o_s so that L + 2o stays the one-way delay, and the outputs
  // show L and o_r as not separable, with `not_separable_reason`.
  bool separable = true;
  std::string not_separable_reason;
  double L_plus_o_r = 0;
  double loggp_residual = 0;     // median relative residual of the g+G*s fits
  std::int64_t fit_break = -1;   // median size where the LogGP fit breaks, -1 none
  // The gap's protocol ranges (medians over the class's pairs): g + G s from `from` up to `to`
  // (-1: no end); the first is loggp.g, loggp.G. The gap of a train is max(overhead_bound, g + G s).
  struct GapRange {
    std::int64_t from = 0, to = -1;
    double g = 0, G = 0;
  };
  std::vector<GapRange> gap_ranges;
  double overhead_bound = 0;
  std::size_t pairs = 0;
  std::vector<std::string> notes;  // e.g. a negative median of the loggp file, shown as 0
  Hockney hockney_for(double m) const;  // the range holding m (or the nearest)
};

struct ModelOptions {
  std::optional<double> o, g;  // override (seconds)
};

// Per class: Hockney ranges and L+2o from the delays; LogGP from the loggp data when given
// (classes by the same topology; pairs of the loggp file are classed with it).
std::vector<ClassParams> class_params(const Cube* delays, const Topology& t, const HockneyResult* h,
                                      const LoggpData* loggp, const ModelOptions& opt = {});

// A Cube from a loggp file (prtt1 per size, halved) to find the topology when no delay file is given.
Cube cube_from_loggp(const LoggpData& d);

struct BcastRow {
  std::int64_t length = 0;
  double measured = -1;  // median over roots of the slowest receiver; -1 when no measurement
  double hockney_binomial = 0, hockney_flat = 0;
  double logp_binomial = 0, logp_flat = 0, logp_optimal = 0;
  double kchain = 0;
  int kchain_k = 0;
  double hierarchical = -1;  // binomial over the nodes, then binomial inside each node; -1 if n/a
};

// Shape of a two-level broadcast: `nodes` groups of at most `per_node` ranks, with the parameters
// of the intra-node class for the second stage.
struct Hierarchy {
  int nodes = 0, per_node = 0;
  const ClassParams* intra = nullptr;
};
// Broadcast predictions for P processes and the given lengths, with `p` (the class that carries
// the broadcast: the slowest present) and, when given, the measured bcast cube.
std::vector<BcastRow> predict_bcast(int P, const std::vector<std::int64_t>& lengths, const ClassParams& p,
                                    const Cube* bcast, const Hierarchy& h = {});

}  // namespace nt::analysis
