#include "nt/viewer/app.hpp"

#include <QApplication>
#include <QBuffer>
#include <QGuiApplication>
#include <QScreen>
#include <QTimer>
#include <QWindow>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <limits>
#include <memory>

#include "animation.hpp"
#include "nt/viewer/document.hpp"
#include "nt/viewer/main_window.hpp"
#include "nt/viewer/render.hpp"
#include "nt/output.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"

namespace nt::viewer {

std::pair<int, int> parse_pair(const std::string& text) {
  const auto comma = text.find(',');
  const auto number = [&](const std::string& t) {
    std::size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != t.size() || v < 0)
      throw nt::UsageError(fmt::format("--pair {}: expected SENDER,RECEIVER (two rank numbers, e.g. --pair 0,1)", text));
    return v;
  };
  if (comma == std::string::npos)
    throw nt::UsageError(fmt::format("--pair {}: expected SENDER,RECEIVER (two rank numbers, e.g. --pair 0,1)", text));
  const std::pair<int, int> p{number(text.substr(0, comma)), number(text.substr(comma + 1))};
  if (p.first == p.second)
    throw nt::UsageError(fmt::format("--pair {0},{0} is on the diagonal: a rank does not measure messages to itself; "
                                     "choose two different ranks",
                                     p.first));
  return p;
}

std::unique_ptr<Document> open_for_render(const RenderOptions& o, ViewSpec& s) {
  if ((o.view == ViewKind::difference || o.view == ViewKind::ratio) && o.compare.empty())
    throw nt::UsageError(fmt::format("--view {} needs --compare FILE", view_name(o.view)));
  if (!o.plot_files.empty() && o.view != ViewKind::pair)
    throw nt::UsageError("several input files are plotted together by --view pair only (one file for other views)");
  if (o.size < 0 || o.size > 32768) throw nt::UsageError(fmt::format("--size {} is outside 1..32768", o.size));
  if (o.white && o.black && !(*o.white < *o.black))
    throw nt::UsageError(fmt::format("--white {} must be below --black {}", *o.white, *o.black));
  if (o.relative && o.view != ViewKind::deviation) throw nt::UsageError("--relative applies to --view deviation only");
  if (o.order == Order::groups && o.groups.empty())
    throw nt::UsageError("--order groups needs the analysed groups (--groups REPORT.json from network_analyze report --json)");
  auto doc = Document::open(o.file);
  if (o.need_values) doc->set_value_limit(std::numeric_limits<int>::max());
  if (!o.compare.empty()) doc->set_compare(o.compare);
  if (!o.groups.empty()) doc->set_groups(o.groups);
  for (const auto& f : o.plot_files) doc->add_plot_file(f);
  s = ViewSpec{};
  s.view = o.view;
  s.normalize = o.normalize;
  s.order = o.order;
  s.k = o.length ? doc->index_of_length(*o.length) : 0;
  s.rank = o.rank;
  if (!o.pairs.empty()) {
    s.sender = o.pairs[0].first;
    s.receiver = o.pairs[0].second;
    s.more_pairs.assign(o.pairs.begin() + 1, o.pairs.end());
  } else {
    s.sender = 0;
    s.receiver = doc->ranks() > 1 ? 1 : 0;
  }
  if (!o.window.empty()) {
    const auto [k0, k1] = doc->window_of_lengths(o.window[0], o.window[1]);
    s.k0 = k0;
    s.k1 = k1;
  }
  s.white = o.white;
  s.black = o.black;
  s.log = o.log;
  s.relative = o.relative;
  s.reduce = o.reduce;
  // A picture smaller than the matrix is reduced while the matrix is read (Document streams it);
  // the CSV needs every value, so it is read whole.
  s.fit = o.need_values ? 0 : o.size;
  if (o.view == ViewKind::pair) {
    const int w = o.size > 0 ? o.size : 800;
    doc->set_plot_size(w, std::max(120, w * 5 / 8));
  }
  return doc;
}

namespace {
ComposeOptions compose_options(const RenderOptions& o, const Document& doc,
                               std::vector<std::pair<QString, std::vector<std::vector<int>>>>& hierarchy) {
  ComposeOptions c;
  c.size = o.size;
  c.decorate = !o.raw_pixels;
  c.raw = o.raw_pixels;
  c.colormap = o.colormap;
  // Raw pixels are the data and nothing else: groups order the ranks there (--order groups) but
  // draw no outline over the cells.
  if (o.raw_pixels) return c;
  if (!doc.groups().empty()) c.groups = &doc.groups();
  for (const auto& [name, g] : doc.hierarchy()) hierarchy.emplace_back(QString::fromStdString(name), g);
  if (!hierarchy.empty()) c.hierarchy = &hierarchy;
  return c;
}

void save_image(const QImage& img, const std::string& out, bool force, const std::string& input) {
  nt::PendingOutput file(out, force, {input});
  write_image(img, file);
  file.commit();
}
}  // namespace

QImage render_image(const RenderOptions& o) {
  ViewSpec s;
  auto doc = open_for_render(o, s);
  const ViewResult r = doc->render(s);
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> h;
  return compose(r, compose_options(o, *doc, h));
}

bool is_animation_target(const std::string& target) {
  return QString::fromStdString(target).endsWith(QStringLiteral(".gif"), Qt::CaseInsensitive);
}

std::size_t render_all(const RenderOptions& o, const std::string& target, bool force) {
  ViewSpec s;
  auto doc = open_for_render(o, s);
  if (s.view != ViewKind::matrix && s.view != ViewKind::deviation && s.view != ViewKind::difference &&
      s.view != ViewKind::ratio)
    throw nt::UsageError("--render-all draws one picture per length: use --view matrix, deviation, difference or ratio");
  // One scale for the whole sequence, so that frames compare, unless the user chose one.
  if (o.normalize == Normalize::matrix && !o.white && !o.black) s.normalize = Normalize::file;
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> h;
  const ComposeOptions c = compose_options(o, *doc, h);
  const auto frame = [&](std::size_t k) {
    s.k = k;
    return compose(doc->render(s), c);
  };
  if (is_animation_target(target)) {
    // One file, written frame by frame: never more than one frame in memory.
    nt::PendingOutput out(target, force, {o.file, o.compare});
    nt::write_file_atomically_into(out, [&](std::ostream& os) {
      const QImage first = frame(0);
      const bool grey = o.raw_pixels && (c.colormap == Colormap::automatic || c.colormap == Colormap::grey);
      GifWriter gif(os, first.width(), first.height(),
                    animation_palette(grey ? Colormap::grey : resolve_colormap(c.colormap, centred(s.view))),
                    kFrameDelayCs);
      gif.add(first);
      for (std::size_t k = 1; k < doc->count(); ++k) gif.add(frame(k));
      gif.finish();
    });
    out.commit();
    return doc->count();
  }
  std::error_code ec;
  std::filesystem::create_directories(target, ec);
  if (ec || !std::filesystem::is_directory(target))
    throw nt::FileError(target, "cannot create the output directory: " + ec.message());
  std::vector<std::string> names;
  for (std::size_t k = 0; k < doc->count(); ++k)
    names.push_back((std::filesystem::path(target) / fmt::format("{}_{:04}_{}B.png", view_name(o.view), k, doc->lengths()[k])).string());
  for (const auto& n : names) nt::check_output(n, force);  // refuse before writing anything
  for (std::size_t k = 0; k < doc->count(); ++k) save_image(frame(k), names[k], force, o.file);
  return names.size();
}

namespace {

QtMessageHandler g_default_handler = nullptr;
// Headless runs print one line per user error; Qt's note about a missing XDG_RUNTIME_DIR is
// irrelevant to a PNG renderer and would only add noise to batch logs.
void quiet_handler(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (type == QtWarningMsg && msg.startsWith(QLatin1String("QStandardPaths:"))) return;
  if (g_default_handler) g_default_handler(type, ctx, msg);
}

// There is a screen to show the window on (UsageError saying what to do when not).
void check_display(const std::string& screenshot) {
  // Without a display Qt would abort with a core dump; say what to do instead.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    throw nt::UsageError("no display (DISPLAY is not set): use --render OUT.png for pictures without a window, "
                         "or QT_QPA_PLATFORM=offscreen");
  // An offscreen platform opens the window where no one can see or close it: the viewer would wait
  // for ever. Only --screenshot, which quits by itself, runs a window there.
  const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
  if ((platform.startsWith("offscreen") || platform.startsWith("minimal")) && screenshot.empty())
    throw nt::UsageError("QT_QPA_PLATFORM=" + platform.toStdString() +
                         ": there is no screen to show the window on: use --render OUT.png for a picture (or "
                         "--screenshot OUT.png to save the window and quit)");
}

// Opens the GUI with the files, takes a screenshot of the main window once the first view is
// drawn (used by the Xvfb test), and quits.
int run_gui(int argc, char** argv, const std::vector<std::string>& files, const RenderOptions& o,
            const std::string& screenshot) {
  check_display(screenshot);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("network_viewer"));
  QApplication::setDesktopFileName(QStringLiteral("network_viewer"));
  std::vector<std::unique_ptr<MainWindow>> windows;
  if (files.empty()) windows.push_back(std::make_unique<MainWindow>());
  for (const auto& f : files) {
    auto w = std::make_unique<MainWindow>();
    // The view options of --render also choose the first view of the window.
    QObject::connect(w.get(), &MainWindow::documentOpened, w.get(), [win = w.get(), o] {
      const DocumentInfo& d = win->document();
      if (o.length) {
        const auto it = std::find(d.lengths.begin(), d.lengths.end(), *o.length);
        if (it != d.lengths.end()) win->setLengthIndex(static_cast<int>(it - d.lengths.begin()));
      }
      win->setRank(o.rank);
      if (!o.pairs.empty()) win->setPairs(o.pairs);
      win->setNormalize(o.normalize);
      win->setLog(o.log);
      win->setReduce(o.reduce);
      win->setView(o.view);
    }, Qt::SingleShotConnection);
    w->openFile(QString::fromStdString(f));
    if (!o.compare.empty()) w->openCompare(QString::fromStdString(o.compare));
    if (!o.groups.empty()) w->loadGroups(QString::fromStdString(o.groups));
    for (const auto& pf : o.plot_files) w->addPlotFile(QString::fromStdString(pf));
    windows.push_back(std::move(w));
  }
  for (auto& w : windows) w->show();
  int rc = 0;
  if (!screenshot.empty()) {
    MainWindow* w = windows.front().get();
    auto shoot = [w, &screenshot, &rc] {
      QTimer::singleShot(400, w, [w, &screenshot, &rc] {
        QApplication::processEvents();
        QPixmap pm;
        if (QScreen* scr = w->screen(); scr && QGuiApplication::platformName() != QLatin1String("offscreen"))
          pm = scr->grabWindow(w->winId());
        if (pm.isNull()) pm = w->grab();
        if (!pm.save(QString::fromStdString(screenshot), "PNG")) {
          std::fprintf(stderr, "network_viewer: error: cannot write %s\n", screenshot.c_str());
          rc = nt::kExitUsage;
        }
        QApplication::quit();
      });
    };
    QObject::connect(w, &MainWindow::viewRendered, w, shoot, Qt::SingleShotConnection);
    QObject::connect(w, &MainWindow::errorShown, w, [&rc](const QString& m) {
      std::fprintf(stderr, "network_viewer: error: %s\n", qPrintable(m));
      rc = nt::kExitUsage;
      QApplication::quit();
    });
    QTimer::singleShot(60000, w, [&rc] {
      std::fprintf(stderr, "network_viewer: error: no view was drawn within 60 s\n");
      rc = nt::kExitUsage;
      QApplication::quit();
    });
  }
  const int r = app.exec();
  windows.clear();
  return rc ? rc : r;
}

}  // namespace

void keep_large_buffers() {
  // A 2048-rank matrix is 32 MiB, its picture 20 MiB: glibc would map and unmap each such block
  // and the kernel zero it again on every view (half the time of an animation export went to
  // page faults). Kept in the heap, they are reused from one length to the next.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

namespace {

// What the command line gives: the files, the view and where it goes.
struct Args {
  std::vector<std::string> files;
  RenderOptions o;
  std::string out, screenshot, render_dir, csv;
  bool force = false;
  long long length = -1;
  std::vector<std::string> pair_texts;
};

// The view's options (what to draw and how); returns --length's option to tell it was given.
CLI::Option* add_view_options(CLI::App& cli, Args& a) {
  RenderOptions& o = a.o;
  nt::add_enum_option(cli, "--view", o.view, view_names(), "what to draw");
  auto* lopt = cli.add_option("--length", a.length, "message length in bytes (a stored one; default: the first)");
  cli.add_option("--rank", o.rank, "rank of the row/column view");
  cli.add_option("--pair", a.pair_texts, "S,R: sender,receiver of the pair view; repeat for several curves on one plot")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cli.add_option("--size", o.size, "longest side in pixels (default: one pixel per cell)");
  nt::add_enum_option(cli, "--normalize", o.normalize, normalize_names(), "where the white/black levels come from");
  cli.add_option("--window", o.window, "A,B: message lengths (bytes) of the window")->delimiter(',')->expected(2);
  cli.add_option("--white", o.white, "value (seconds) drawn white");
  cli.add_option("--black", o.black, "value (seconds) drawn black");
  cli.add_flag("--log", o.log, "logarithmic grey scale (and delay axis of pair plots)");
  cli.add_flag("--relative", o.relative, "deviation view: deviation divided by the value (coefficient of variation)");
  cli.add_flag("--decorate", o.decorate, "add title, axes and colour bar (the default; see --raw-pixels)");
  cli.add_flag("--raw-pixels", o.raw_pixels, "one grey pixel per cell (P x P), no decoration: for scripts");
  nt::add_enum_option(cli, "--colormap", o.colormap, colormap_names(),
                      "colours of the cells (auto: viridis, diverging for differences; gray: grey)");
  nt::add_enum_option(cli, "--order", o.order, order_names(), "order of the ranks on the axes (groups needs --groups)");
  nt::add_enum_option(cli, "--reduce", o.reduce, reduce_names(),
                      "a pixel showing several cells (--size below the rank count, or the GUI zoomed out) shows "
                      "their largest value (max, the default: a slow link stays visible) or their median");
  return lopt;
}

// The other outputs, the second run and the overlays (the files and --render come first in --help).
void add_output_options(CLI::App& cli, Args& a) {
  cli.add_option("--render-all", a.render_dir,
                 "one picture per stored length: DIR gets a PNG each, a NAME.gif an animation (one scale for all)");
  cli.add_option("--csv", a.csv, "write the data behind the view (values in seconds) to this CSV file");
  cli.add_option("--compare", a.o.compare,
                 "second run for --view difference|ratio (ranks matched by host; by number only without host names)");
  cli.add_option("--groups", a.o.groups,
                 "topology JSON ({\"groups\": [[ranks...], ...]}) drawn as overlays (with --raw-pixels: only --order groups)");
  cli.add_flag("--force", a.force, "overwrite an existing PNG");
  cli.add_option("--screenshot", a.screenshot, "GUI: save a screenshot of the window once drawn, then quit")->group("");
}

// --render, --render-all, --csv: the checks of the options, then the pictures without a window.
int run_headless(Args& a, char** argv) {
  RenderOptions& o = a.o;
  if (a.files.empty()) throw nt::UsageError("--render needs an input file");
  if (a.files.size() > 1 && o.view != ViewKind::pair)
    throw nt::UsageError("--render needs exactly one input file (several only with --view pair, to plot the same "
                         "pairs from each)");
  o.plot_files.assign(a.files.begin() + 1, a.files.end());
  if (!o.window.empty() && o.window[0] > o.window[1]) std::swap(o.window[0], o.window[1]);
  o.file = a.files.front();
  o.need_values = !a.csv.empty();
  if (o.decorate && o.raw_pixels) throw nt::UsageError("--decorate and --raw-pixels exclude each other");
  if (o.raw_pixels && !o.groups.empty() && o.order != Order::groups)
    throw nt::UsageError("--raw-pixels draws no outlines over the data: drop --groups, or add --order groups to "
                         "order the ranks by them");
  std::vector<std::string> inputs = a.files;
  if (!o.compare.empty()) inputs.push_back(o.compare);
  const std::string gif = is_animation_target(a.render_dir) ? a.render_dir : std::string();
  for (const std::string& p : {a.out, a.csv, gif})
    if (!p.empty()) {
      nt::check_output(p, a.force);
      nt::refuse_same_file(p, {inputs.begin(), inputs.end()});
    }
  // Headless: no display needed, whatever the environment says.
  qputenv("QT_QPA_PLATFORM", "offscreen");
  g_default_handler = qInstallMessageHandler(quiet_handler);
  int qargc = 1;
  char* qargv[] = {argv[0], nullptr};
  QGuiApplication app(qargc, qargv);
  if (!a.out.empty() || !a.csv.empty()) {
    ViewSpec s;
    auto doc = open_for_render(o, s);
    const ViewResult r = doc->render(s);
    if (!a.csv.empty()) nt::write_file_atomically(a.csv, a.force, [&](std::ostream& cf) { cf << view_csv(r); }, {o.file});
    if (!a.out.empty()) {
      std::vector<std::pair<QString, std::vector<std::vector<int>>>> h;
      save_image(compose(r, compose_options(o, *doc, h)), a.out, a.force, o.file);
    }
  }
  if (!a.render_dir.empty()) render_all(o, a.render_dir, a.force);
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  keep_large_buffers();
  return nt::guarded_main("network_viewer", [&]() -> int {
    CLI::App cli{"network_viewer: grayscale delay matrices, row/column slices, pair plots, deviation maps and "
                 "differences of network_test result files. Without --render it opens the Qt GUI."};
    cli.name("network_viewer");
    nt::add_version_flag(cli);
    Args a;
    cli.add_option("files", a.files, "result files (raw, legacy network_test2, text, clustered)");
    cli.add_option("--render", a.out, "write the view to this PNG file without opening a window");
    CLI::Option* lopt = add_view_options(cli, a);
    add_output_options(cli, a);
    if (const int rc = nt::parse_cli(cli, argc, argv); rc >= 0) return rc;
    if (lopt->count()) a.o.length = a.length;
    for (const auto& t : a.pair_texts) a.o.pairs.push_back(parse_pair(t));
    if (!a.out.empty() || !a.render_dir.empty() || !a.csv.empty()) return run_headless(a, argv);
    if (a.o.view == ViewKind::pair && a.files.size() > 1) {
      // One window plotting the same pairs from every file.
      a.o.plot_files.assign(a.files.begin() + 1, a.files.end());
      a.files.resize(1);
    }
    return run_gui(argc, argv, a.files, a.o, a.screenshot);
  });
}

}  // namespace nt::viewer
