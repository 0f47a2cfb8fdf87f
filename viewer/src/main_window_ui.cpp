// The main window's widgets built: the image, menus, the controls and info docks, the status bar.
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

void MainWindow::buildUi() {
  setWindowTitle(QStringLiteral("network_viewer"));
  setWindowIcon(QIcon::fromTheme(QStringLiteral("network_viewer")));
  buildCentral();
  buildMenus();
  buildControlsDock();
  buildInfoDock();
  buildStatusBar();
  connectControls();
  resize(1200, 800);
}

// The picture with the error bar above it.
void MainWindow::buildCentral() {
  view_ = new ImageView;
  errorLabel_ = new QLabel;
  errorLabel_->setObjectName(QStringLiteral("errorLabel"));
  errorLabel_->setStyleSheet(QStringLiteral("QLabel { background: #fbe3e4; color: #8a1f11; padding: 4px; }"));
  errorLabel_->setWordWrap(true);
  errorLabel_->hide();
  auto* central = new QWidget;
  auto* cl = new QVBoxLayout(central);
  cl->setContentsMargins(0, 0, 0, 0);
  cl->addWidget(errorLabel_);
  cl->addWidget(view_, 1);
  setCentralWidget(central);
}

// The File and View menus.
void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::openDialog);
  file->addAction(tr("&Compare with..."), this, &MainWindow::compareDialog);
  file->addAction(tr("Load topology &groups..."), this, &MainWindow::groupsDialog);
  file->addAction(tr("Add file to &pair plot..."), this, &MainWindow::plotFileDialog);
  file->addAction(tr("Remove added pair-plot files"), this, [this] { session_->clearPlotFiles(); });
  file->addAction(tr("&Export view as PNG or SVG..."), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportDialog);
  file->addAction(tr("Export view &data as CSV..."), this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("Export data"), QStringLiteral("view.csv"), tr("CSV (*.csv)"));
    if (!f.isEmpty()) exportCsv(f);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  viewMenu->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, view_, &ImageView::zoomIn);
  viewMenu->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, view_, &ImageView::zoomOut);
  viewMenu->addAction(tr("&Fit"), QKeySequence(tr("Ctrl+0")), view_, &ImageView::fit);
}

// The form of every view setting, docked left.
void MainWindow::buildControlsDock() {
  auto* controls = new QWidget;
  auto* form = new QFormLayout(controls);
  addViewRows(form);
  addPinnedPairs(form);
  addLevelRows(form);
  addDisplayRows(form);
  auto* controlsDock = new QDockWidget(tr("Controls"), this);
  controlsDock->setObjectName(QStringLiteral("controlsDock"));
  controlsDock->setWidget(controls);
  addDockWidget(Qt::LeftDockWidgetArea, controlsDock);
}

// What is drawn: the view, its message length, rank and pair.
void MainWindow::addViewRows(QFormLayout* form) {
  viewBox_ = new QComboBox;
  viewBox_->setObjectName(QStringLiteral("viewBox"));
  for (const auto& [name, v] : view_names()) viewBox_->addItem(QString::fromStdString(name), static_cast<int>(v));
  form->addRow(tr("View"), viewBox_);
  lengthSlider_ = new QSlider(Qt::Horizontal);
  lengthSlider_->setObjectName(QStringLiteral("lengthSlider"));
  lengthSpin_ = new LengthSpinBox;
  lengthSpin_->setObjectName(QStringLiteral("lengthSpin"));
  auto* lrow = new QHBoxLayout;
  lrow->addWidget(lengthSlider_, 1);
  lrow->addWidget(lengthSpin_);
  form->addRow(tr("Length"), lrow);
  rankSpin_ = new QSpinBox;
  rankSpin_->setObjectName(QStringLiteral("rankSpin"));
  form->addRow(tr("Rank"), rankSpin_);
  senderSpin_ = new QSpinBox;
  receiverSpin_ = new QSpinBox;
  senderSpin_->setObjectName(QStringLiteral("senderSpin"));
  receiverSpin_->setObjectName(QStringLiteral("receiverSpin"));
  auto* prow = new QHBoxLayout;
  prow->addWidget(senderSpin_);
  prow->addWidget(new QLabel(QStringLiteral("->")));
  prow->addWidget(receiverSpin_);
  form->addRow(tr("Pair"), prow);
}

// Pinned pairs: further curves of the pair view.
void MainWindow::addPinnedPairs(QFormLayout* form) {
  pairsList_ = new QListWidget;
  pairsList_->setObjectName(QStringLiteral("pairsList"));
  pairsList_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  pairsList_->setMaximumHeight(90);
  pairsList_->setToolTip(tr("Pairs drawn beside the one above; Pin adds the current pair"));
  pinButton_ = new QPushButton(tr("Pin"));
  unpinButton_ = new QPushButton(tr("Remove"));
  pinButton_->setObjectName(QStringLiteral("pinButton"));
  unpinButton_->setObjectName(QStringLiteral("unpinButton"));
  auto* pinRow = new QHBoxLayout;
  pinRow->addWidget(pinButton_);
  pinRow->addWidget(unpinButton_);
  auto* pinBox = new QVBoxLayout;
  pinBox->addWidget(pairsList_);
  pinBox->addLayout(pinRow);
  form->addRow(tr("More pairs"), pinBox);
  connect(pinButton_, &QPushButton::clicked, this, &MainWindow::pinPair);
  connect(unpinButton_, &QPushButton::clicked, this, [this] {
    const auto items = pairsList_->selectedItems();
    if (items.isEmpty()) return;
    qDeleteAll(items);
    requestView();
  });
}

// Where the grey levels come from: normalisation, window, fixed white and black, log scale.
void MainWindow::addLevelRows(QFormLayout* form) {
  normBox_ = new QComboBox;
  normBox_->setObjectName(QStringLiteral("normBox"));
  for (Normalize n : {Normalize::matrix, Normalize::file, Normalize::window})
    normBox_->addItem(QString::fromLatin1(normalize_name(n).data()), static_cast<int>(n));
  form->addRow(tr("Normalise"), normBox_);
  winFrom_ = new LengthSpinBox;
  winTo_ = new LengthSpinBox;
  auto* wrow = new QHBoxLayout;
  wrow->addWidget(winFrom_);
  wrow->addWidget(new QLabel(QStringLiteral("..")));
  wrow->addWidget(winTo_);
  form->addRow(tr("Window"), wrow);
  addLevelRow(form, whiteSet_, whiteSpin_, tr("White"));
  addLevelRow(form, blackSet_, blackSpin_, tr("Black"));
  relativeBox_ = new QCheckBox(tr("relative deviation (/ value)"));
  relativeBox_->setObjectName(QStringLiteral("relativeBox"));
  form->addRow(QString(), relativeBox_);
  connect(relativeBox_, &QCheckBox::toggled, this, &MainWindow::requestView);
  logBox_ = new QCheckBox(tr("log scale"));
  groupsBox_ = new QCheckBox(tr("group overlay"));
  groupsBox_->setChecked(true);
  form->addRow(QString(), logBox_);
  form->addRow(QString(), groupsBox_);
}

// A level ("White", "Black") fixed by the user: a check box and the value beside it.
void MainWindow::addLevelRow(QFormLayout* form, QCheckBox*& set, QDoubleSpinBox*& spin, const QString& name) {
  set = new QCheckBox(tr("fix"));
  spin = new QDoubleSpinBox;
  spin->setDecimals(4);
  spin->setRange(-1e9, 1e9);
  spin->setSuffix(QStringLiteral(" µs"));
  spin->setEnabled(false);
  auto* row = new QHBoxLayout;
  row->addWidget(set);
  row->addWidget(spin, 1);
  form->addRow(name, row);
  connect(set, &QCheckBox::toggled, spin, &QWidget::setEnabled);
  connect(set, &QCheckBox::toggled, this, &MainWindow::requestView);
  connect(spin, &QDoubleSpinBox::valueChanged, this, [this, set] {
    if (set->isChecked()) requestView();
  });
}

// How cells become pixels: colormap, rank order, and a pixel showing several cells.
void MainWindow::addDisplayRows(QFormLayout* form) {
  mapBox_ = new QComboBox;
  mapBox_->setObjectName(QStringLiteral("mapBox"));
  for (Colormap c : {Colormap::automatic, Colormap::viridis, Colormap::grey, Colormap::diverging})
    mapBox_->addItem(QString::fromLatin1(colormap_name(c).data()), static_cast<int>(c));
  form->addRow(tr("Colours"), mapBox_);
  orderBox_ = new QComboBox;
  orderBox_->setObjectName(QStringLiteral("orderBox"));
  for (Order o : {Order::rank, Order::host, Order::groups})
    orderBox_->addItem(QString::fromLatin1(order_name(o).data()), static_cast<int>(o));
  form->addRow(tr("Order"), orderBox_);
  // A screen pixel showing several cells of a big matrix: their largest value or their median.
  reduceBox_ = new QComboBox;
  reduceBox_->setObjectName(QStringLiteral("reduceBox"));
  reduceBox_->addItem(tr("max (slowest cell)"), static_cast<int>(Reduce::max));
  reduceBox_->addItem(tr("median"), static_cast<int>(Reduce::median));
  reduceBox_->setToolTip(tr("Zoomed out, one pixel shows a block of cells: their largest value (a single slow link "
                            "stays visible) or their median"));
  form->addRow(tr("Pixel of cells"), reduceBox_);
  connect(reduceBox_, &QComboBox::currentIndexChanged, this,
          [this] { view_->setReduce(static_cast<Reduce>(reduceBox_->currentData().toInt())); });
  connect(mapBox_, &QComboBox::currentIndexChanged, this,
          [this] { view_->setColormap(static_cast<Colormap>(mapBox_->currentData().toInt())); });
  connect(orderBox_, &QComboBox::currentIndexChanged, this, &MainWindow::requestView);
}

// The file's parameters and hosts, in tabs docked below the controls.
void MainWindow::buildInfoDock() {
  auto* tabs = new QTabWidget;
  auto makeTable = [](QAbstractItemModel* m) {
    auto* t = new QTableView;
    t->setModel(m);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    return t;
  };
  auto* infoTable = makeTable(info_);
  infoTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tabs->addTab(infoTable, tr("Parameters"));
  tabs->addTab(makeTable(hosts_), tr("Hosts"));
  auto* infoDock = new QDockWidget(tr("File"), this);
  infoDock->setObjectName(QStringLiteral("infoDock"));
  infoDock->setWidget(tabs);
  addDockWidget(Qt::LeftDockWidgetArea, infoDock);
}

// Hover text, level of detail, "cut short", progress and Cancel.
void MainWindow::buildStatusBar() {
  hoverLabel_ = new QLabel;
  hoverLabel_->setObjectName(QStringLiteral("hoverLabel"));
  progress_ = new QProgressBar;
  progress_->setMaximumWidth(180);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->hide();
  cutShortLabel_ = new QLabel;
  cutShortLabel_->setObjectName(QStringLiteral("cutShortLabel"));
  cutShortLabel_->setStyleSheet(QStringLiteral("QLabel { color: #8a1f11; font-weight: bold; }"));
  cutShortLabel_->hide();
  detailLabel_ = new QLabel;
  detailLabel_->setObjectName(QStringLiteral("detailLabel"));
  statusBar()->addWidget(hoverLabel_, 1);
  statusBar()->addPermanentWidget(detailLabel_);
  statusBar()->addPermanentWidget(cutShortLabel_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, session_, &Session::cancel);
}

}  // namespace nt::viewer
