#include "app.hpp"

#include <QApplication>
#include <QGuiApplication>
#include <QScreen>
#include <QTimer>
#include <QWindow>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "document.hpp"
#include "main_window.hpp"
#include "render.hpp"
#include "nt/output.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"

namespace ntv {

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

QImage render_image(const RenderOptions& o) {
  const auto view = view_from_name(o.view);
  if (!view) throw nt::UsageError(fmt::format("--view: unknown view '{}'", o.view));
  const auto norm = normalize_from_name(o.normalize);
  if (!norm) throw nt::UsageError(fmt::format("--normalize: unknown mode '{}'", o.normalize));
  if ((*view == ViewKind::difference || *view == ViewKind::ratio) && o.compare.empty())
    throw nt::UsageError(fmt::format("--view {} needs --compare FILE", o.view));
  if (!o.plot_files.empty() && *view != ViewKind::pair)
    throw nt::UsageError("several input files are plotted together by --view pair only (one file for other views)");
  if (o.size < 0 || o.size > 32768) throw nt::UsageError(fmt::format("--size {} is outside 1..32768", o.size));
  auto doc = Document::open(o.file);
  if (!o.compare.empty()) doc->set_compare(o.compare);
  if (!o.groups.empty()) doc->set_groups(o.groups);
  for (const auto& f : o.plot_files) doc->add_plot_file(f);
  ViewSpec s;
  s.view = *view;
  s.normalize = *norm;
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
  if (o.relative && *view != ViewKind::deviation) throw nt::UsageError("--relative applies to --view deviation only");
  if (*view == ViewKind::pair) {
    const int w = o.size > 0 ? o.size : 800;
    doc->set_plot_size(w, std::max(120, w * 5 / 8));
  }
  const ViewResult r = doc->render(s);
  ComposeOptions c;
  c.size = o.size;
  c.decorate = o.decorate;
  if (!doc->groups().empty()) c.groups = &doc->groups();
  return compose(r, c);
}

namespace {

QtMessageHandler g_default_handler = nullptr;
// Headless runs print one line per user error; Qt's note about a missing XDG_RUNTIME_DIR is
// irrelevant to a PNG renderer and would only add noise to batch logs.
void quiet_handler(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (type == QtWarningMsg && msg.startsWith(QLatin1String("QStandardPaths:"))) return;
  if (g_default_handler) g_default_handler(type, ctx, msg);
}

// Opens the GUI with the files, takes a screenshot of the main window once the first view is
// drawn (used by the Xvfb test), and quits.
int run_gui(int argc, char** argv, const std::vector<std::string>& files, const RenderOptions& o,
            const std::string& screenshot) {
  // Without a display Qt would abort with a core dump; say what to do instead.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    throw nt::UsageError("no display (DISPLAY is not set): use --render OUT.png for pictures without a window, "
                         "or QT_QPA_PLATFORM=offscreen");
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
      if (const auto n = normalize_from_name(o.normalize)) win->setNormalize(*n);
      win->setLog(o.log);
      if (const auto v = view_from_name(o.view)) win->setView(*v);
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
          rc = 2;
        }
        QApplication::quit();
      });
    };
    QObject::connect(w, &MainWindow::viewRendered, w, shoot, Qt::SingleShotConnection);
    QObject::connect(w, &MainWindow::errorShown, w, [&rc](const QString& m) {
      std::fprintf(stderr, "network_viewer: error: %s\n", qPrintable(m));
      rc = 2;
      QApplication::quit();
    });
    QTimer::singleShot(60000, w, [&rc] {
      std::fprintf(stderr, "network_viewer: error: no view was drawn within 60 s\n");
      rc = 2;
      QApplication::quit();
    });
  }
  const int r = app.exec();
  windows.clear();
  return rc ? rc : r;
}

}  // namespace

int run(int argc, char** argv) {
  return nt::guarded_main("network_viewer", [&]() -> int {
    CLI::App cli{"network_viewer: grayscale delay matrices, row/column slices, pair plots, deviation maps and "
                 "differences of network_test result files. Without --render it opens the Qt GUI."};
    cli.set_version_flag("--version", std::string(nt::version_string()));
    std::vector<std::string> files;
    RenderOptions o;
    std::string out, screenshot;
    bool force = false;
    long long length = -1;
    cli.add_option("files", files, "result files (raw, legacy network_test2, text, clustered)");
    cli.add_option("--render", out, "write the view to this PNG file without opening a window");
    cli.add_option("--view", o.view, "matrix|row|column|pair|deviation|difference|ratio")
        ->check(CLI::IsMember({"matrix", "row", "column", "pair", "deviation", "difference", "ratio"}));
    auto* lopt = cli.add_option("--length", length, "message length in bytes (a stored one; default: the first)");
    cli.add_option("--rank", o.rank, "rank of the row/column view");
    std::vector<std::string> pair_texts;
    cli.add_option("--pair", pair_texts, "S,R: sender,receiver of the pair view; repeat for several curves on one plot")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cli.add_option("--size", o.size, "longest side in pixels (default: one pixel per cell)");
    cli.add_option("--normalize", o.normalize, "matrix|file|window: where the white/black levels come from")
        ->check(CLI::IsMember({"matrix", "file", "window"}));
    cli.add_option("--window", o.window, "A,B: message lengths (bytes) of the window")->delimiter(',')->expected(2);
    cli.add_option("--white", o.white, "value (seconds) drawn white");
    cli.add_option("--black", o.black, "value (seconds) drawn black");
    cli.add_flag("--log", o.log, "logarithmic grey scale (and delay axis of pair plots)");
    cli.add_flag("--relative", o.relative, "deviation view: deviation divided by the value (coefficient of variation)");
    cli.add_flag("--decorate", o.decorate, "add title, axes and legend to the PNG");
    cli.add_option("--compare", o.compare,
                   "second run for --view difference|ratio (ranks matched by host when the shapes differ)");
    cli.add_option("--groups", o.groups, "topology JSON ({\"groups\": [[ranks...], ...]}) drawn as overlays");
    cli.add_flag("--force", force, "overwrite an existing PNG");
    cli.add_option("--screenshot", screenshot, "GUI: save a screenshot of the window once drawn, then quit")
        ->group("");
    if (const int rc = nt::parse_cli(cli, argc, argv); rc >= 0) return rc;
    if (lopt->count()) o.length = length;
    for (const auto& t : pair_texts) o.pairs.push_back(parse_pair(t));
    if (!out.empty()) {
      if (files.empty()) throw nt::UsageError("--render needs an input file");
      if (files.size() > 1 && o.view != "pair")
        throw nt::UsageError("--render needs exactly one input file (several only with --view pair, to plot the same "
                             "pairs from each)");
      o.plot_files.assign(files.begin() + 1, files.end());
      if (!o.window.empty() && o.window[0] > o.window[1]) std::swap(o.window[0], o.window[1]);
      o.file = files.front();
      nt::check_output(out, force);
      std::vector<std::string> inputs = files;
      if (!o.compare.empty()) inputs.push_back(o.compare);
      nt::refuse_same_file(out, {inputs.begin(), inputs.end()});
      // Headless: no display needed, whatever the environment says.
      qputenv("QT_QPA_PLATFORM", "offscreen");
      g_default_handler = qInstallMessageHandler(quiet_handler);
      int qargc = 1;
      char* qargv[] = {argv[0], nullptr};
      QGuiApplication app(qargc, qargv);
      const QImage img = render_image(o);
      nt::PendingOutput png(out, force);
      if (!img.save(QString::fromStdString(png.temp().string()), "PNG"))
        throw nt::FileError(out, "cannot write the PNG file: " + nt::errno_text(errno));
      png.commit();
      return 0;
    }
    if (o.view == "pair" && files.size() > 1) {
      // One window plotting the same pairs from every file.
      o.plot_files.assign(files.begin() + 1, files.end());
      files.resize(1);
    }
    return run_gui(argc, argv, files, o, screenshot);
  });
}

}  // namespace ntv
