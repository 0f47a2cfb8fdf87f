// Viewer benchmark: opening a large raw file and rendering large matrix views.
//
//   bench_viewer [--file PATH] [--ranks P] [--lengths N] [--reps R]
//
// Writes the file once (RawWriter, a cheap formula: two-level topology plus a slow node) when it
// does not exist with that shape, then reports the median and min of R repetitions of:
//   open        Document::open (nt::open_dataset: metadata and lengths only, no matrix)
//   first view  open + matrix view of the first length (what the user waits for)
//   read+render matrix view of another length on an open document (slider move)
//   image only  values -> grey QImage for P x P cells (no I/O)
//   row view    one rank over every length (lazy hyperslab read of N x P values)
//   worker      the GUI path: Session (worker thread) opens and renders, signals back
// and once: the file-wide normalisation scan (reads every matrix). Timings are wall clock with a
// warm page cache (the file was just written or read).
#include <QBuffer>
#include <QEventLoop>
#include <QGuiApplication>
#include <QTimer>

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nt/viewer/app.hpp"
#include "nt/viewer/document.hpp"
#include "nt/viewer/render.hpp"
#include "nt/viewer/session.hpp"
#include "nt/cli.hpp"
#include "nt/raw_file.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double median_of(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

// Wall-clock median and min, and the median CPU time of the process (the benchmark is single
// threaded, so CPU time is what the work costs when the machine is shared).
struct Stat {
  double median, min, cpu;
};

Stat measure(int reps, const std::function<void(int)>& f) {
  std::vector<double> t, c;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    const double c0 = cpu_ms();
    f(r);
    c.push_back(cpu_ms() - c0);
    t.push_back(ms_since(t0));
  }
  return {median_of(t), *std::min_element(t.begin(), t.end()), median_of(c)};
}

// Shuffled placement: rank r runs on node node_of(r) (32 ranks per node, 16 nodes per switch),
// a fixed permutation, so that rank order scatters every block and --order groups gathers them.
std::vector<int> node_of_ranks(int P) {
  std::vector<int> slot(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) slot[static_cast<std::size_t>(i)] = i;
  std::uint64_t st = 0x5eed;
  for (int i = P - 1; i > 0; --i) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(slot[static_cast<std::size_t>(i)], slot[static_cast<std::size_t>((st >> 33) % static_cast<std::uint64_t>(i + 1))]);
  }
  for (int& s : slot) s /= 32;
  return slot;
}

void write_file(const std::filesystem::path& path, int P, int N) {
  const std::vector<int> node = node_of_ranks(P);
  nt::FileInfo info;
  info.params.proc_num = P;
  info.params.begin_length = 0;
  info.params.step_length = 1024;
  info.params.end_length = 1024 * (N - 1);
  info.params.num_repeats = 1;
  info.meta.sweep = "linear";
  for (int i = 0; i < P; ++i) info.meta.hosts.push_back("node" + std::to_string(node[static_cast<std::size_t>(i)]));
  nt::RawWriter w(path, info, true);
  std::vector<double> m(static_cast<std::size_t>(P) * static_cast<std::size_t>(P));
  for (int k = 0; k < N; ++k) {
    const double len = 1024.0 * k;
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        const int ni = node[static_cast<std::size_t>(i)], nj = node[static_cast<std::size_t>(j)];
        const bool same_node = ni == nj, same_switch = ni / 16 == nj / 16;
        double t = i == j ? 0.0 : same_node ? 0.5e-6 + len / 10e9 : 2e-6 + len / 1e9 + (same_switch ? 0 : 1e-6);
        if (ni == 5 || nj == 5) t *= 3;
        m[static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)] = t;
      }
    w.append(static_cast<std::int64_t>(len), m);
  }
  w.close();
}

// The analysed hierarchy of that placement, as network_analyze report --json writes it.
void write_hierarchy(const std::filesystem::path& path, int P) {
  const std::vector<int> node = node_of_ranks(P);
  const int nodes = (P + 31) / 32, switches = (nodes + 15) / 16;
  std::vector<std::vector<int>> by_node(static_cast<std::size_t>(nodes)), by_switch(static_cast<std::size_t>(switches));
  for (int r = 0; r < P; ++r) {
    by_node[static_cast<std::size_t>(node[static_cast<std::size_t>(r)])].push_back(r);
    by_switch[static_cast<std::size_t>(node[static_cast<std::size_t>(r)] / 16)].push_back(r);
  }
  const auto list = [](const std::vector<std::vector<int>>& g) {
    std::string s = "[";
    for (std::size_t i = 0; i < g.size(); ++i) {
      s += i ? ",[" : "[";
      for (std::size_t j = 0; j < g[i].size(); ++j) s += (j ? "," : "") + std::to_string(g[i][j]);
      s += "]";
    }
    return s + "]";
  };
  std::ofstream(path) << "{\"hierarchy\": [{\"level\": \"node\", \"groups\": " << list(by_node)
                      << "}, {\"level\": \"switch\", \"groups\": " << list(by_switch) << "}]}\n";
}

// The file of P ranks and N lengths, written when missing or of another shape.
void ensure_file(const std::string& file, int P, int N) {
  bool ok = false;
  try {
    auto d = nt::viewer::Document::open(file);
    ok = d->ranks() == P && static_cast<int>(d->count()) == N;
  } catch (const nt::Error&) {
  }
  if (!ok) {
    std::printf("writing %s: %d ranks x %d lengths (%.2f GiB) ...\n", file.c_str(), P, N,
                8.0 * P * P * N / (1024.0 * 1024 * 1024));
    const auto t0 = Clock::now();
    write_file(file, P, N);
    std::printf("written in %.1f s\n", ms_since(t0) / 1000);
  }
}

// Reorder + render of one length, separated from reading it. The matrix is read
// once into memory (as the GUI's document has it after the read); then, alternately, rank
// order and --order groups: values -> (gather) -> levels -> cells, and the decorated picture
// the user exports (colormap, both hierarchy levels, colour bar, host-name axes).
void bench_reorder_and_render(const std::string& file, const std::string& groups_json, int P, int N, int reps) {
  auto disk = nt::viewer::Document::open(file);
  const std::size_t k = static_cast<std::size_t>(N - 1);
  const Stat read = measure(reps, [&](int) { (void)disk->data().matrix(k); });
  std::printf("%-34s %9.2f %9.2f %9.2f\n", "read one matrix (NetCDF)", read.median, read.min, read.cpu);
  auto one = std::make_unique<nt::MemoryDataset>(disk->data().info());
  one->append(disk->lengths()[k], disk->data().matrix(k));
  auto doc = nt::viewer::Document::adopt(std::move(one), file);
  doc->set_groups(groups_json);
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> levels;
  for (const auto& [name, g] : doc->hierarchy()) levels.emplace_back(QString::fromStdString(name), g);
  nt::viewer::ComposeOptions deco;
  deco.decorate = true;
  deco.colormap = nt::viewer::Colormap::automatic;
  deco.hierarchy = &levels;
  for (nt::viewer::Order order : {nt::viewer::Order::rank, nt::viewer::Order::groups}) {
    nt::viewer::ViewSpec v;
    v.order = order;
    (void)doc->render(v);
  }
  std::vector<double> render_ms[2], compose_ms[2], total_cpu[2];
  for (int r = 0; r < reps; ++r)
    for (int o = 0; o < 2; ++o) {
      nt::viewer::ViewSpec s;
      s.order = o ? nt::viewer::Order::groups : nt::viewer::Order::rank;
      const double c0 = cpu_ms();
      auto t0 = Clock::now();
      const nt::viewer::ViewResult res = doc->render(s);
      render_ms[o].push_back(ms_since(t0));
      t0 = Clock::now();
      const QImage img = nt::viewer::compose(res, deco);
      compose_ms[o].push_back(ms_since(t0));
      total_cpu[o].push_back(cpu_ms() - c0);
      if (img.width() < P) std::abort();
    }
  for (int o = 0; o < 2; ++o) {
    std::vector<double> sum;
    for (int r = 0; r < reps; ++r) sum.push_back(render_ms[o][static_cast<std::size_t>(r)] + compose_ms[o][static_cast<std::size_t>(r)]);
    std::printf("%-34s %9.2f %9.2f %9.2f   (render %.2f + decorated picture %.2f)\n",
                o ? "order groups: reorder+render+picture" : "rank order:   render+picture", median_of(sum),
                *std::min_element(sum.begin(), sum.end()), median_of(total_cpu[o]), median_of(render_ms[o]),
                median_of(compose_ms[o]));
  }
  nt::viewer::ViewSpec grouped;
  grouped.order = nt::viewer::Order::groups;
  const nt::viewer::ViewResult res = doc->render(grouped);
  const QImage img = nt::viewer::compose(res, deco);
  const Stat png = measure(std::max(1, reps / 3), [&](int) {
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "PNG");
  });
  std::printf("%-34s %9.2f %9.2f %9.2f   (%d x %d)\n", "PNG encoding of that picture", png.median, png.min, png.cpu,
              img.width(), img.height());
}

// The animated GIF over every stored length (file-wide levels: one scan, then a frame per
// length), once, in process: what --render-all NAME.gif does.
void bench_animation(const std::string& file, const std::string& groups_json) {
  nt::viewer::RenderOptions o;
  o.file = file;
  o.order = nt::viewer::Order::groups;
  o.groups = groups_json;
  const std::string gif = file + ".gif";
  const double c0 = cpu_ms();
  const auto t0 = Clock::now();
  const std::size_t frames = nt::viewer::render_all(o, gif, true);
  std::printf("animated GIF, %zu frames (--order groups, decorated): %.0f ms wall, %.0f ms CPU, %.1f MiB\n", frames,
              ms_since(t0), cpu_ms() - c0, static_cast<double>(std::filesystem::file_size(gif)) / (1024.0 * 1024.0));
}

// Opening, the first view, the GUI's worker, a slider move, the image alone, a row view and the
// file-wide normalisation scan.
void bench_views(const std::string& file, int P, int N, int reps) {
  const Stat open = measure(reps, [&](int) { auto d = nt::viewer::Document::open(file); });
  std::printf("%-24s %9.2f %9.2f %9.2f\n", "open", open.median, open.min, open.cpu);

  const Stat first = measure(reps, [&](int) {
    auto d = nt::viewer::Document::open(file);
    nt::viewer::ViewSpec s;
    (void)d->render(s);
  });
  std::printf("%-24s %9.2f %9.2f %9.2f\n", "open + first view", first.median, first.min, first.cpu);

  // The GUI path: the worker thread opens the file and renders, the results come back as
  // signals to this (GUI) thread. Wall time from open() to the rendered() signal.
  const Stat worker = measure(reps, [&](int) {
    nt::viewer::Session session;
    QEventLoop loop;
    QObject::connect(&session, &nt::viewer::Session::opened, &loop, [&] { session.request(nt::viewer::ViewSpec{}); });
    QObject::connect(&session, &nt::viewer::Session::rendered, &loop, &QEventLoop::quit);
    QObject::connect(&session, &nt::viewer::Session::failed, &loop, [&](const QString& m) {
      std::fprintf(stderr, "%s\n", qPrintable(m));
      std::abort();
    });
    session.open(QString::fromStdString(file));
    loop.exec();
  });
  std::printf("%-24s %9.2f %9.2f %9s\n", "worker: open + view", worker.median, worker.min, "-");

  auto doc = nt::viewer::Document::open(file);
  const Stat slider = measure(reps, [&](int r) {
    nt::viewer::ViewSpec s;
    s.k = static_cast<std::size_t>(1 + r % (N - 1));
    (void)doc->render(s);
  });
  std::printf("%-24s %9.2f %9.2f %9.2f\n", "read + render matrix", slider.median, slider.min, slider.cpu);

  const auto values = doc->data().matrix(static_cast<std::size_t>(N - 1)).values();
  const Stat image = measure(reps, [&](int) {
    const auto r = nt::viewer::range_of(values, P, P, nt::viewer::ViewResult::kDiagIsRow);
    const auto img = nt::viewer::cells_image(values, P, P, nt::viewer::levels_from(r, false, false));
    if (img.width != P) std::abort();
  });
  std::printf("%-24s %9.2f %9.2f %9.2f\n", "image only (P x P)", image.median, image.min, image.cpu);

  const Stat row = measure(reps, [&](int r) {
    nt::viewer::ViewSpec s;
    s.view = nt::viewer::ViewKind::row;
    s.rank = (r * 97) % P;
    (void)doc->render(s);
  });
  std::printf("%-24s %9.2f %9.2f %9.2f\n", "row view (N x P)", row.median, row.min, row.cpu);

  const auto t0 = Clock::now();
  const double c0 = cpu_ms();
  nt::viewer::ViewSpec s;
  s.normalize = nt::viewer::Normalize::file;
  (void)doc->render(s);
  std::printf("file normalisation scan (once, %d matrices): %.0f ms wall, %.0f ms CPU\n", N, ms_since(t0), cpu_ms() - c0);
}

void print_peak_rss() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("peak RSS: %.0f MiB\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  return nt::guarded_main("bench_viewer", [&]() -> int {
    CLI::App app{"network_viewer benchmark"};
    std::string file = "/tmp/nt_viewer_bench_shuffled.nc";
    int P = 2048, N = 64, reps = 9;
    bool order_render_only = false, animation = true;
    app.add_option("--file", file, "raw file to use (written when missing or of another shape)");
    app.add_option("--ranks", P);
    app.add_option("--lengths", N);
    app.add_option("--reps", reps);
    app.add_flag("--order-render", order_render_only, "only the reorder + render figures, and the animation");
    app.add_flag("!--no-animation", animation, "skip the animated GIF export over every length");
    if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
    nt::viewer::keep_large_buffers();  // as network_viewer does
    qputenv("QT_QPA_PLATFORM", "offscreen");
    int qargc = 1;
    char* qargv[] = {argv[0], nullptr};
    QGuiApplication qapp(qargc, qargv);
    ensure_file(file, P, N);
    std::printf("file %s: %d ranks, %d lengths, %d repetitions (wall median / wall min / CPU median, ms)\n", file.c_str(), P, N, reps);
    const std::string groups_json = file + ".groups.json";
    write_hierarchy(groups_json, P);
    bench_reorder_and_render(file, groups_json, P, N, reps);
    if (animation) bench_animation(file, groups_json);
    if (!order_render_only) bench_views(file, P, N, reps);
    print_peak_rss();
    return 0;
  });
}
