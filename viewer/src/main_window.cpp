#include "nt/viewer/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "nt/viewer/image_view.hpp"
#include "nt/viewer/models.hpp"
#include "nt/viewer/render.hpp"
#include "nt/viewer/session.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/output.hpp"
#include "nt/units.hpp"

namespace nt::viewer {

// ---- LengthSpinBox ----
void LengthSpinBox::setLengths(const std::vector<std::int64_t>& lengths) {
  lengths_ = lengths;
  setRange(0, std::max(0, static_cast<int>(lengths_.size()) - 1));
  setSuffix(QStringLiteral(" B"));
}

QString LengthSpinBox::textFromValue(int value) const {
  if (value >= 0 && static_cast<std::size_t>(value) < lengths_.size())
    return QString::number(lengths_[static_cast<std::size_t>(value)]);
  return QString::number(value);
}

int LengthSpinBox::valueFromText(const QString& text) const {
  bool ok = false;
  const qint64 v = text.trimmed().toLongLong(&ok);
  if (!ok || lengths_.empty()) return value();
  std::size_t best = 0;
  for (std::size_t k = 1; k < lengths_.size(); ++k)
    if (std::llabs(lengths_[k] - v) < std::llabs(lengths_[best] - v)) best = k;
  return static_cast<int>(best);
}

QValidator::State LengthSpinBox::validate(QString& text, int&) const {
  QString t = text;
  if (t.endsWith(suffix())) t.chop(suffix().size());
  t = t.trimmed();
  if (t.isEmpty()) return QValidator::Intermediate;
  for (QChar c : t)
    if (!c.isDigit()) return QValidator::Invalid;
  return QValidator::Acceptable;
}

// ---- MainWindow ----
MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  session_ = new Session(this);
  info_ = new InfoModel(this);
  hosts_ = new HostsModel(this);
  buildUi();
  connect(session_, &Session::opened, this, &MainWindow::onOpened);
  connect(session_, &Session::changed, this, &MainWindow::onChanged);
  connect(session_, &Session::rendered, this, &MainWindow::onRendered);
  connect(session_, &Session::failed, this, &MainWindow::onFailed);
  connect(session_, &Session::busyChanged, this, &MainWindow::onBusy);
  connect(session_, &Session::progress, this, &MainWindow::onProgress);
  connect(session_, &Session::cancelled, this, [this] { statusBar()->showMessage(tr("Cancelled"), 3000); });
  updateEnabled();
}

MainWindow::~MainWindow() {
  // Stop and join the worker while the window is still whole, so that no result arrives late.
  delete session_;
  session_ = nullptr;
}

// Every control change asks the worker for a new view; the view and the normalisation also
// decide which controls apply.
void MainWindow::connectControls() {
  for (QComboBox* b : {viewBox_, normBox_})
    connect(b, &QComboBox::currentIndexChanged, this, [this] {
      updateEnabled();
      requestView();
    });
  connect(lengthSlider_, &QSlider::valueChanged, lengthSpin_, &QSpinBox::setValue);
  connect(lengthSpin_, &QSpinBox::valueChanged, lengthSlider_, &QSlider::setValue);
  for (QSpinBox* s : {static_cast<QSpinBox*>(lengthSpin_), rankSpin_, senderSpin_, receiverSpin_,
                      static_cast<QSpinBox*>(winFrom_), static_cast<QSpinBox*>(winTo_)})
    connect(s, &QSpinBox::valueChanged, this, &MainWindow::requestView);
  connect(logBox_, &QCheckBox::toggled, this, &MainWindow::requestView);
  connect(groupsBox_, &QCheckBox::toggled, view_, &ImageView::setShowGroups);
  connect(view_, &ImageView::cellHovered, this, [this](int r, int c) { hoverLabel_->setText(hoverText(r, c)); });
  connect(view_, &ImageView::hoverLeft, hoverLabel_, &QLabel::clear);
  connect(view_, &ImageView::detailChanged, detailLabel_, &QLabel::setText);
}

void MainWindow::updateEnabled() {
  const auto v = static_cast<ViewKind>(viewBox_->currentData().toInt());
  const bool atLength =
      v == ViewKind::matrix || v == ViewKind::deviation || v == ViewKind::difference || v == ViewKind::ratio;
  const bool slice = v == ViewKind::row || v == ViewKind::column;
  lengthSlider_->setEnabled(haveDoc_ && atLength);
  lengthSpin_->setEnabled(haveDoc_ && atLength);
  rankSpin_->setEnabled(haveDoc_ && slice);
  senderSpin_->setEnabled(haveDoc_ && v == ViewKind::pair);
  for (QWidget* w : {static_cast<QWidget*>(pairsList_), static_cast<QWidget*>(pinButton_),
                     static_cast<QWidget*>(unpinButton_)})
    w->setEnabled(haveDoc_ && v == ViewKind::pair);
  relativeBox_->setEnabled(haveDoc_ && v == ViewKind::deviation);
  receiverSpin_->setEnabled(haveDoc_ && v == ViewKind::pair);
  const bool window = slice || v == ViewKind::pair ||
                      static_cast<Normalize>(normBox_->currentData().toInt()) == Normalize::window;
  winFrom_->setEnabled(haveDoc_ && window);
  winTo_->setEnabled(haveDoc_ && window);
}

ViewSpec MainWindow::currentSpec() const {
  ViewSpec s;
  s.view = static_cast<ViewKind>(viewBox_->currentData().toInt());
  s.k = static_cast<std::size_t>(std::max(0, lengthSpin_->value()));
  s.rank = rankSpin_->value();
  s.sender = senderSpin_->value();
  s.receiver = receiverSpin_->value();
  for (int i = 0; i < pairsList_->count(); ++i) {
    const QPoint pr = pairsList_->item(i)->data(Qt::UserRole).toPoint();
    s.more_pairs.emplace_back(pr.x(), pr.y());
  }
  s.normalize = static_cast<Normalize>(normBox_->currentData().toInt());
  const int a = std::min(winFrom_->value(), winTo_->value()), b = std::max(winFrom_->value(), winTo_->value());
  s.k0 = static_cast<std::size_t>(std::max(0, a));
  s.k1 = static_cast<std::size_t>(std::max(0, b) + 1);
  // Level spin boxes are in µs, or in % for the relative deviation.
  const double unit =
      (s.view == ViewKind::deviation && relativeBox_->isChecked()) || s.view == ViewKind::ratio ? 1e-2 : 1e-6;
  if (whiteSet_->isChecked()) s.white = whiteSpin_->value() * unit;
  if (blackSet_->isChecked()) s.black = blackSpin_->value() * unit;
  s.log = logBox_->isChecked();
  s.relative = relativeBox_->isChecked();
  s.order = static_cast<Order>(orderBox_->currentData().toInt());
  return s;
}

void MainWindow::requestView() {
  if (!haveDoc_ || rebuilding_) return;
  session_->request(currentSpec());
}

void MainWindow::setView(ViewKind v) { viewBox_->setCurrentIndex(viewBox_->findData(static_cast<int>(v))); }
void MainWindow::setLengthIndex(int k) { lengthSpin_->setValue(k); }
void MainWindow::setNormalize(Normalize n) { normBox_->setCurrentIndex(normBox_->findData(static_cast<int>(n))); }
void MainWindow::setRank(int r) { rankSpin_->setValue(r); }
void MainWindow::setPair(int s, int r) {
  rebuilding_ = true;
  senderSpin_->setValue(s);
  rebuilding_ = false;
  receiverSpin_->setValue(r);
}
void MainWindow::setPairs(const std::vector<std::pair<int, int>>& pairs) {
  rebuilding_ = true;
  pairsList_->clear();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0) {
      senderSpin_->setValue(pairs[0].first);
      receiverSpin_->setValue(pairs[0].second);
      continue;
    }
    auto* item = new QListWidgetItem(QStringLiteral("%1 -> %2").arg(pairs[i].first).arg(pairs[i].second), pairsList_);
    item->setData(Qt::UserRole, QPoint(pairs[i].first, pairs[i].second));
  }
  rebuilding_ = false;
  requestView();
}

void MainWindow::pinPair() {
  const QPoint pr(senderSpin_->value(), receiverSpin_->value());
  for (int i = 0; i < pairsList_->count(); ++i)
    if (pairsList_->item(i)->data(Qt::UserRole).toPoint() == pr) return;
  auto* item = new QListWidgetItem(QStringLiteral("%1 -> %2").arg(pr.x()).arg(pr.y()), pairsList_);
  item->setData(Qt::UserRole, pr);
  requestView();
}

void MainWindow::clearPinnedPairs() {
  pairsList_->clear();
  requestView();
}

void MainWindow::addPlotFile(const QString& path) {
  session_->addPlotFile(path);
  setView(ViewKind::pair);
}

void MainWindow::setLog(bool on) { logBox_->setChecked(on); }
void MainWindow::setColormap(Colormap c) { mapBox_->setCurrentIndex(mapBox_->findData(static_cast<int>(c))); }
void MainWindow::setReduce(Reduce r) { reduceBox_->setCurrentIndex(reduceBox_->findData(static_cast<int>(r))); }
void MainWindow::setOrder(Order o) { orderBox_->setCurrentIndex(orderBox_->findData(static_cast<int>(o))); }

void MainWindow::openFile(const QString& path) {
  statusBar()->showMessage(tr("Opening %1 ...").arg(path));
  session_->open(path);
}
void MainWindow::openCompare(const QString& path) { session_->openCompare(path); }
void MainWindow::loadGroups(const QString& path) { session_->loadGroups(path); }

void MainWindow::onOpened(const DocumentInfo& info) {
  doc_ = info;
  haveDoc_ = true;
  lastError_.clear();
  errorLabel_->hide();
  info_->setDocument(info);
  hosts_->setDocument(info);
  view_->setGroups(info.groups);
  view_->setHierarchy(info.hierarchy);
  rebuilding_ = true;
  const int P = info.info.params.proc_num;
  const int n = static_cast<int>(info.lengths.size());
  lengthSpin_->setLengths(info.lengths);
  winFrom_->setLengths(info.lengths);
  winTo_->setLengths(info.lengths);
  lengthSlider_->setRange(0, std::max(0, n - 1));
  lengthSlider_->setValue(0);
  lengthSpin_->setValue(0);
  winFrom_->setValue(0);
  winTo_->setValue(std::max(0, n - 1));
  for (QSpinBox* s : {rankSpin_, senderSpin_, receiverSpin_}) s->setRange(0, std::max(0, P - 1));
  senderSpin_->setValue(0);
  receiverSpin_->setValue(P > 1 ? 1 : 0);
  pairsList_->clear();  // pinned pairs belong to the previous file
  rankSpin_->setValue(0);
  rebuilding_ = false;
  // A killed run's file says so wherever the user looks: title, status bar, Parameters tab.
  setWindowTitle(info.cut_short.isEmpty()
                     ? QStringLiteral("%1 - network_viewer").arg(QFileInfo(info.path).fileName())
                     : QStringLiteral("%1 (cut short) - network_viewer").arg(QFileInfo(info.path).fileName()));
  cutShortLabel_->setText(info.cut_short);
  cutShortLabel_->setToolTip(info.cut_short);
  cutShortLabel_->setVisible(!info.cut_short.isEmpty());
  statusBar()->showMessage(tr("%1: %2 ranks, %3 message lengths (%4)").arg(info.path).arg(P).arg(n).arg(info.format), 5000);
  updateEnabled();
  emit documentOpened();
  requestView();
}

void MainWindow::onChanged(const DocumentInfo& info) {
  doc_ = info;
  if (!info.compare_match.isEmpty())
    statusBar()->showMessage(tr("Compared with %1: %2").arg(info.compare_path, info.compare_match), 10000);
  info_->setDocument(info);
  view_->setGroups(info.groups);
  view_->setHierarchy(info.hierarchy);
  requestView();
}

void MainWindow::onRendered(const ViewResult& r) {
  // A successful view supersedes an earlier failure: the error bar must not stay on.
  errorLabel_->hide();
  lastError_.clear();
  view_->setResult(r, true);
  for (QDoubleSpinBox* spin : {whiteSpin_, blackSpin_}) spin->setSuffix(r.ratio() ? QStringLiteral(" %") : QStringLiteral(" µs"));
  // Show the levels in use unless the user fixed them.
  for (auto [set, spin, v] : {std::tuple{whiteSet_, whiteSpin_, r.levels.white},
                              std::tuple{blackSet_, blackSpin_, r.levels.black}}) {
    if (!set->isChecked() && !r.plot) {
      const QSignalBlocker b(spin);
      spin->setValue(r.ratio() ? v * 100 : v * 1e6);
    }
  }
  emit viewRendered();
}

void MainWindow::onFailed(const QString& message) {
  lastError_ = message;
  errorLabel_->setText(message);
  errorLabel_->show();
  statusBar()->showMessage(message, 10000);
  emit errorShown(message);
}

void MainWindow::onBusy(bool busy) {
  progress_->setVisible(busy);
  cancel_->setVisible(busy);
  if (busy) {
    progress_->setRange(0, 0);
  }
}

void MainWindow::onProgress(int done, int total) {
  progress_->setRange(0, total);
  progress_->setValue(done);
}

QString MainWindow::rankName(int r) const {
  const QString h = hosts_->host(r);
  return h.isEmpty() ? QString::number(r) : QStringLiteral("%1 (%2)").arg(r).arg(h);
}

QString MainWindow::hoverText(int row, int col) const {
  const ViewResult& r = view_->result();
  if (r.plot) {
    if (row < 0 || col < 0 || static_cast<std::size_t>(row) >= r.curves.size()) return {};
    const PlotCurve& c = r.curves[static_cast<std::size_t>(row)];
    const auto k = static_cast<std::size_t>(col);
    if (k >= c.y.size() || k >= c.lengths.size()) return {};
    // Host names of this window's file; a curve of another file names its own ranks only.
    const bool own = c.source == 0;
    const QString sender = own ? rankName(c.sender) : QString::number(c.sender);
    const QString receiver = own ? rankName(c.receiver) : QString::number(c.receiver);
    QString t = QStringLiteral("sender %1 -> receiver %2 at %3: %4")
                    .arg(sender, receiver, QString::fromStdString(nt::format_bytes(c.lengths[k])), format_value(c.y[k], false));
    if (k < c.band.size() && std::isfinite(c.band[k])) t += QStringLiteral(" +- ") + format_value(c.band[k], false);
    if (k < c.samples.size()) t += QStringLiteral(", %1 samples").arg(c.samples[k]);
    if (!doc_.plot_files.empty()) t += QStringLiteral(" [%1]").arg(c.file);
    return t;
  }
  if ((!r.values && !r.probe) || r.plot || row < 0 || col < 0 || row >= r.rows || col >= r.cols) return {};
  // A big matrix keeps no values: the exact one is read from the file (through the probe).
  const double v = r.value_at(row, col);
  int sender = r.rank_at(row), receiver = r.rank_at(col);
  std::int64_t len = 0;
  if (r.spec.view == ViewKind::row || r.spec.view == ViewKind::column) {
    len = r.row_lengths[static_cast<std::size_t>(row)];
    sender = r.spec.view == ViewKind::row ? r.spec.rank : r.rank_at(col);
    receiver = r.spec.view == ViewKind::row ? r.rank_at(col) : r.spec.rank;
  } else if (r.spec.k < doc_.lengths.size()) {
    len = doc_.lengths[r.spec.k];
  }
  QString value = format_value(v, r.ratio());
  if (r.spec.view == ViewKind::deviation)
    value = (r.spec.relative ? QStringLiteral("relative deviation ") : QStringLiteral("deviation ")) + value;
  if (r.spec.view == ViewKind::difference) value = QStringLiteral("difference ") + value;
  if (r.spec.view == ViewKind::ratio) value = QStringLiteral("ratio ") + value;
  if (r.samples && r.samples->size() == static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(r.cols))
    value += QStringLiteral(", %1 samples")
                 .arg((*r.samples)[static_cast<std::size_t>(row) * static_cast<std::size_t>(r.cols) + static_cast<std::size_t>(col)]);
  else if (!r.values && r.probe)
    if (const auto n = r.probe->samples(row, col)) value += QStringLiteral(", %1 samples").arg(*n);
  return QStringLiteral("sender %1 -> receiver %2 at %3: %4")
      .arg(rankName(sender), rankName(receiver), QString::fromStdString(nt::format_bytes(len)), value);
}

bool MainWindow::exportPng(const QString& path) {
  if (!view_->hasResult()) return false;
  ComposeOptions o;
  o.decorate = true;
  o.colormap = view_->colormap();
  if (groupsBox_->isChecked()) {
    o.groups = &doc_.groups;
    if (!doc_.hierarchy.empty()) o.hierarchy = &doc_.hierarchy;
  }
  ViewResult r = view_->result();
  r.spec.reduce = view_->reduce();
  // A picture of a big matrix is reduced to 4096 pixels (as on screen, max or median per pixel).
  if (!r.plot && std::max(r.rows, r.cols) > 4096) o.size = 4096;
  const QImage img = compose(r, o);
  return saveOutput(path, [&](nt::PendingOutput& out) { write_image(img, out); });
}

bool MainWindow::exportCsv(const QString& path) {
  if (!view_->hasResult()) return false;
  if (!view_->result().values) {
    onFailed(tr("the view of %1 ranks keeps no values in memory: write its CSV with network_viewer FILE --render "
                "OUT.png --csv OUT.csv").arg(view_->result().rows));
    return false;
  }
  return saveOutput(path, [&](nt::PendingOutput& out) {
    nt::write_file_atomically_into(out, [&](std::ostream& os) { os << view_csv(view_->result()); });
  });
}

bool MainWindow::saveOutput(const QString& path, const std::function<void(nt::PendingOutput&)>& write) {
  // The file dialog has asked about overwriting; the file still appears whole or not at all,
  // and never replaces a device, a symlink or the open result file.
  try {
    nt::PendingOutput out(path.toStdString(), /*force=*/true,
                          {doc_.path.toStdString(), doc_.deviation_path.toStdString(), doc_.compare_path.toStdString()});
    write(out);
    out.commit();
  } catch (const nt::Error& e) {
    onFailed(QString::fromStdString(nt::one_line(e.what())));
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
  return true;
}

void MainWindow::openDialog() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Open result file"), QString(),
                                                 tr("Results (*.nc *.txt *.dat);;All files (*)"));
  if (!f.isEmpty()) openFile(f);
}
void MainWindow::compareDialog() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Compare with"), QString(),
                                                 tr("Results (*.nc *.txt *.dat);;All files (*)"));
  if (!f.isEmpty()) {
    openCompare(f);
    setView(ViewKind::difference);
  }
}
void MainWindow::groupsDialog() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Topology groups"), QString(), tr("JSON (*.json)"));
  if (!f.isEmpty()) loadGroups(f);
}
void MainWindow::plotFileDialog() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Add file to the pair plot"), QString(),
                                                 tr("Results (*.nc *.txt *.dat);;All files (*)"));
  if (!f.isEmpty()) addPlotFile(f);
}
void MainWindow::exportDialog() {
  const QString f = QFileDialog::getSaveFileName(this, tr("Export view"), QStringLiteral("view.png"), tr("PNG (*.png);;SVG (*.svg)"));
  if (!f.isEmpty()) exportPng(f);
}

}  // namespace nt::viewer
