// Item models of the viewer; fed with value types (DocumentInfo) from the worker.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <utility>
#include <vector>

#include "view_spec.hpp"

namespace ntv {

// Two columns, "Property" and "Value": the test parameters, the metadata and every extra
// attribute of the file, plus the stored message lengths.
class InfoModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setDocument(const DocumentInfo& info);
  void clear();
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  // Value of a property by name (empty when missing); used by tests and the title bar.
  QString value(const QString& property) const;

 private:
  std::vector<std::pair<QString, QString>> rows_;
};

// One row per rank: rank, host, CPU, NUMA node.
class HostsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setDocument(const DocumentInfo& info);
  void clear();
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  QString host(int rank) const;

 private:
  int ranks_ = 0;
  std::vector<QString> hosts_;
  std::vector<int> cpus_, numa_;
};

}  // namespace ntv
