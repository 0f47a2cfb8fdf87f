// The main window: controls that build a ViewSpec, an ImageView that shows the worker's result,
// dock widgets with the file's parameters and hosts. It connects signals and nothing more: all
// reading and rendering happens in the Session's worker thread.
#pragma once

#include <QMainWindow>
#include <QSpinBox>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "nt/viewer/view_spec.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSlider;
class QTableView;

namespace nt {
class PendingOutput;
}

namespace nt::viewer {

class HostsModel;
class ImageView;
class InfoModel;
class Session;

// A spin box over the stored message lengths: its value is the matrix index, its text the
// length in bytes; typing a length selects the nearest stored one.
class LengthSpinBox : public QSpinBox {
  Q_OBJECT
 public:
  using QSpinBox::QSpinBox;
  void setLengths(const std::vector<std::int64_t>& lengths);

 protected:
  QString textFromValue(int value) const override;
  int valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;

 private:
  std::vector<std::int64_t> lengths_;
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void openFile(const QString& path);
  void openCompare(const QString& path);
  void loadGroups(const QString& path);
  // Saves the current view, decorated (title, axes, legend, overlays), as PNG.
  bool exportPng(const QString& path);
  // Saves the data behind the current view as CSV (values in seconds; empty = no data).
  bool exportCsv(const QString& path);
  void setColormap(Colormap c);
  void setOrder(Order o);
  // How a screen pixel showing a block of cells is reduced (the view's choice; status bar).
  void setReduce(Reduce r);

  ViewSpec currentSpec() const;
  void setView(ViewKind v);
  void setLengthIndex(int k);
  void setNormalize(Normalize n);
  void setRank(int r);
  void setPair(int sender, int receiver);
  // The pair view's curves: the first pair goes to the sender/receiver boxes, the others to the
  // list of pinned pairs (replacing it).
  void setPairs(const std::vector<std::pair<int, int>>& pairs);
  // Pins the sender/receiver boxes' pair to the list (its curve stays as the boxes move on).
  void pinPair();
  void clearPinnedPairs();
  // Overlays the same pairs from another file in the pair view.
  void addPlotFile(const QString& path);
  void setLog(bool on);

  ImageView* view() const { return view_; }
  InfoModel* infoModel() const { return info_; }
  HostsModel* hostsModel() const { return hosts_; }
  Session* session() const { return session_; }
  QString lastError() const { return lastError_; }
  const DocumentInfo& document() const { return doc_; }
  // The status-bar text for a hovered cell of the current result.
  QString hoverText(int row, int col) const;

 signals:
  void documentOpened();
  void viewRendered();
  void errorShown(const QString& message);

 private slots:
  void onOpened(const nt::viewer::DocumentInfo& info);
  void onChanged(const nt::viewer::DocumentInfo& info);
  void onRendered(const nt::viewer::ViewResult& r);
  void onFailed(const QString& message);
  void onBusy(bool busy);
  void onProgress(int done, int total);
  void requestView();
  void openDialog();
  void compareDialog();
  void groupsDialog();
  void exportDialog();
  void plotFileDialog();

 private:
  // The window in the order it is built: the picture, menus, the docked controls and file
  // tables, the status bar, then what each control change asks for.
  void buildUi();
  void buildCentral();
  void buildMenus();
  void buildControlsDock();
  void addViewRows(QFormLayout* form);
  void addPinnedPairs(QFormLayout* form);
  void addLevelRows(QFormLayout* form);
  void addLevelRow(QFormLayout* form, QCheckBox*& set, QDoubleSpinBox*& spin, const QString& name);
  void addDisplayRows(QFormLayout* form);
  void buildInfoDock();
  void buildStatusBar();
  void connectControls();
  // Writes an export through the output discipline; a failure goes to the error bar.
  bool saveOutput(const QString& path, const std::function<void(nt::PendingOutput&)>& write);
  void updateEnabled();
  QString rankName(int r) const;

  Session* session_ = nullptr;
  ImageView* view_ = nullptr;
  InfoModel* info_ = nullptr;
  HostsModel* hosts_ = nullptr;
  DocumentInfo doc_;
  bool haveDoc_ = false;
  bool rebuilding_ = false;
  QString lastError_;

  QComboBox* viewBox_ = nullptr;
  QSlider* lengthSlider_ = nullptr;
  LengthSpinBox* lengthSpin_ = nullptr;
  QSpinBox* rankSpin_ = nullptr;
  QSpinBox* senderSpin_ = nullptr;
  QSpinBox* receiverSpin_ = nullptr;
  QListWidget* pairsList_ = nullptr;
  QPushButton* pinButton_ = nullptr;
  QPushButton* unpinButton_ = nullptr;
  QComboBox* normBox_ = nullptr;
  LengthSpinBox* winFrom_ = nullptr;
  LengthSpinBox* winTo_ = nullptr;
  QCheckBox* whiteSet_ = nullptr;
  QCheckBox* blackSet_ = nullptr;
  QDoubleSpinBox* whiteSpin_ = nullptr;
  QDoubleSpinBox* blackSpin_ = nullptr;
  QCheckBox* logBox_ = nullptr;
  QCheckBox* relativeBox_ = nullptr;
  QCheckBox* groupsBox_ = nullptr;
  QComboBox* mapBox_ = nullptr;
  QComboBox* orderBox_ = nullptr;
  QComboBox* reduceBox_ = nullptr;
  QLabel* detailLabel_ = nullptr;   // status bar: what one screen pixel shows (level of detail)
  QLabel* hoverLabel_ = nullptr;
  QLabel* errorLabel_ = nullptr;
  QLabel* cutShortLabel_ = nullptr;  // status bar: "cut short: ..." while such a file is open
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
};

}  // namespace nt::viewer
