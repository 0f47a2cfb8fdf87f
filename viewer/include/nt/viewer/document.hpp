// A document: one opened result file, plus what the views need beside it (the `_deviation.nc`
// file next to it, a file to compare with, topology groups). Everything is read lazily through
// nt::Dataset; per-matrix value ranges are cached so that file- and window-wide normalisation
// read each matrix once. Not thread-safe: the GUI uses it from its worker thread only.
// Its functions live in viewer/src/ by job: document.cpp (the files), document_values.cpp (the
// values of a view, the range cache), document_render.cpp (rendering), document_probe.cpp (the
// streamed views' probes), pair_view.cpp (pair plots), rank_order.cpp, groups_file.cpp (the
// groups JSON) and rank_match.cpp (matching the ranks and lengths of another run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nt/dataset.hpp"
#include "nt/viewer/levels.hpp"
#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

// Thrown by Document::render when Progress::cancelled() returned true.
struct Cancelled {};

struct Progress {
  std::function<void(std::size_t done, std::size_t total)> report;
  std::function<bool()> cancelled;
};

// Reads {"groups": [[ranks...], ...]} (network_analyze report --json), each rank at most once.
// Throws nt::FileError.
std::vector<std::vector<int>> read_groups(const std::filesystem::path& path, int ranks);
// Reads every level of {"hierarchy": [{"level": NAME, "groups": [[...]]}, ...]} (finest first);
// a file with only "groups" gives one level named "group". Throws nt::FileError.
std::vector<std::pair<std::string, std::vector<std::vector<int>>>> read_hierarchy(const std::filesystem::path& path,
                                                                                 int ranks);
// The rank at each displayed position for an order: host names (natural order, then rank), or
// nested analysed groups (coarsest level first, then finer levels, then rank). Ranks no group
// holds come last. Throws nt::UsageError when the order needs what is missing.
std::vector<int> rank_order(Order order, int ranks, const std::vector<std::string>& hosts,
                            const std::vector<std::pair<std::string, std::vector<std::vector<int>>>>& hierarchy);

// "cut short: ..." when the file holds fewer lengths than its run planned; empty otherwise.
QString cut_short_note(const nt::Dataset& d);

class Document {
 public:
  // Opens any file nt::open_dataset knows; throws nt::Error with a clear message.
  static std::unique_ptr<Document> open(const std::filesystem::path& path);
  // A document over data already in memory (benchmarks, tests); `path` names it in titles and
  // is where a deviation file would be looked for.
  static std::unique_ptr<Document> adopt(std::unique_ptr<nt::Dataset> data, const std::filesystem::path& path);

  const nt::Dataset& data() const { return *data_; }
  int ranks() const { return data_->ranks(); }
  std::size_t count() const { return data_->count(); }
  const std::vector<std::int64_t>& lengths() const { return data_->lengths(); }
  DocumentInfo info() const;

  // The deviation dataset: the file itself when it is a deviation file, else the
  // `<prefix>_deviation.nc` beside it; nullptr when there is none.
  const nt::Dataset* deviation();
  const nt::Dataset* compare() const { return cmp_.get(); }
  // Opens a second run for the difference and ratio views. Ranks are matched as network_analyze
  // compare matches them: by host when both files name the host of every rank (the ranks on a
  // host the other run lacks show no data), by number only when a file names no hosts and the
  // rank counts agree (the match line says so); lengths by value. UsageError when the ranks
  // cannot be matched (no host in common, or no hosts and other rank counts) or no length is common.
  void set_compare(const std::filesystem::path& path);
  // How set_compare matched the ranks and lengths (one line; empty without a compared file).
  const std::string& compare_match() const { return cmp_match_; }
  // Further files whose curves the pair view overlays (the same pairs, ranks matched by host
  // when both files name hosts, else by number).
  void add_plot_file(const std::filesystem::path& path);
  void clear_plot_files() { plot_files_.clear(); }
  std::size_t plot_files() const { return plot_files_.size(); }
  void set_groups(const std::filesystem::path& json);
  void set_groups(std::vector<std::vector<int>> g) { groups_ = std::move(g); }
  const std::vector<std::vector<int>>& groups() const { return groups_; }
  const std::vector<std::pair<std::string, std::vector<std::vector<int>>>>& hierarchy() const { return hierarchy_; }

  // Matrix index of a stored length; UsageError listing the stored lengths otherwise.
  std::size_t index_of_length(std::int64_t bytes) const;
  // Matrix indices [k0, k1) of the stored lengths within [a, b]; UsageError when none.
  std::pair<std::size_t, std::size_t> window_of_lengths(std::int64_t a, std::int64_t b) const;

  // Renders a view (throws nt::UsageError for impossible specs, nt::Error for read failures,
  // Cancelled when progress.cancelled() turns true during a file/window scan).
  ViewResult render(const ViewSpec& spec, const Progress& progress = {});
  // Plot size used for pair views.
  void set_plot_size(int w, int h) { plot_w_ = w; plot_h_ = h; }
  // Matrix-like views of more ranks than this are streamed: read in blocks of rows, made into
  // grey levels (reduced to spec.fit) block by block, with no P x P values kept; the result's
  // probe reads exact values on demand. Views asking for a reduced picture (spec.fit at most
  // half the ranks) are streamed whatever the size. Default kValueLimit.
  static constexpr int kValueLimit = 4096;
  void set_value_limit(int ranks) { value_limit_ = ranks; }
  int value_limit() const { return value_limit_; }
  // Whether render(spec) would stream (see set_value_limit).
  bool streams(const ViewSpec& spec) const;
  struct ProbeFiles;  // (the streamed views' probes' handles of the files)

 private:
  enum class Source { primary, deviation, relative_deviation, difference, ratio };
  struct PlotFile {
    std::filesystem::path path;
    std::unique_ptr<nt::Dataset> data, dev;
  };
  static Source source_of(const ViewSpec& spec);
  ViewResult render_pair(const ViewSpec& spec);
  ViewResult render_streamed(ViewResult res, Source src, const Progress& progress);
  // The values of a row or column view (res.spec), with res's axes set.
  std::vector<double> slice_values(ViewResult& res);
  // The range the levels of view res span: its values, or the cached ranges of the file or window.
  Range view_range(Source src, const std::vector<double>& values, const ViewResult& res, const Progress& progress);
  Document() = default;
  std::vector<double> matrix_values(Source s, std::size_t k) { return block_values(s, k, 0, ranks()); }
  // Rows [r0, r1) (senders, rank order) of the view source's matrix k; no data as NaN.
  std::vector<double> block_values(Source s, std::size_t k, int r0, int r1);
  // The same rows of the difference (else ratio) to the compared run, matched by cmp_rank_, cmp_len_.
  std::vector<double> compared_rows(bool difference, std::size_t k, int r0, int r1);
  // Rows [i0, i1) of the displayed matrix: ranks in `order` (empty: rank order) on both axes.
  std::vector<double> display_rows(Source s, std::size_t k, int i0, int i1, const std::vector<int>& order);
  std::shared_ptr<const CellProbe> probe_for(Source s, std::size_t k, const std::vector<int>& order);
  Range matrix_range(Source s, std::size_t k);
  Range scan(Source s, std::size_t k0, std::size_t k1, const Progress& progress);
  QString title_for(const ViewSpec& spec) const;

  std::unique_ptr<nt::Dataset> data_;
  std::unique_ptr<nt::Dataset> dev_;
  std::unique_ptr<nt::Dataset> cmp_;
  std::filesystem::path path_, dev_path_, cmp_path_;
  bool dev_is_self_ = false, dev_tried_ = false;
  std::vector<std::vector<int>> groups_;
  std::vector<std::pair<std::string, std::vector<std::vector<int>>>> hierarchy_;
  std::vector<int> order_cache_;
  Order order_cached_ = Order::rank;
  const std::vector<int>& order_for(Order o);
  std::vector<int> cmp_rank_;             // rank here -> rank in cmp_ (-1: none)
  std::vector<std::ptrdiff_t> cmp_len_;   // length index here -> index in cmp_ (-1: none)
  std::string cmp_match_;
  std::vector<PlotFile> plot_files_;
  std::map<Source, std::vector<std::optional<Range>>> cache_;
  int plot_w_ = 800, plot_h_ = 500;
  int value_limit_ = kValueLimit;
  std::shared_ptr<ProbeFiles> probe_files_;  // the probes' own handles of the files (opened once)
  bool probe_tried_ = false;
};

}  // namespace nt::viewer
