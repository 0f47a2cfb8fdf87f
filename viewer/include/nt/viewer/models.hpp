// Item models of the viewer; fed with value types (DocumentInfo) from the worker.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <utility>
#include <vector>

#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

// A read-only, flat table filled from a DocumentInfo: fixed column titles, rows from the
// document. Subclasses say how many rows there are and what each cell shows.
class DocumentTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  void setDocument(const DocumentInfo& info);
  void clear();
  int rowCount(const QModelIndex& parent = {}) const final { return parent.isValid() ? 0 : rows(); }
  int columnCount(const QModelIndex& parent = {}) const final {
    return parent.isValid() ? 0 : static_cast<int>(titles_.size());
  }
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const final;

 protected:
  DocumentTableModel(std::vector<QString> titles, QObject* parent);
  virtual void fill(const DocumentInfo& info) = 0;  // between the model's reset signals
  virtual void empty() = 0;
  virtual int rows() const = 0;
  // The cell (row, column) of a valid index, for `role`.
  virtual QVariant cell(int row, int column, int role) const = 0;

 private:
  std::vector<QString> titles_;
};

// Two columns, "Property" and "Value": the test parameters, the metadata and every extra
// attribute of the file, plus the stored message lengths.
class InfoModel : public DocumentTableModel {
  Q_OBJECT
 public:
  explicit InfoModel(QObject* parent = nullptr);
  // Value of a property by name (empty when missing); used by tests and the title bar.
  QString value(const QString& property) const;

 protected:
  void fill(const DocumentInfo& info) override;
  void empty() override { rows_.clear(); }
  int rows() const override { return static_cast<int>(rows_.size()); }
  QVariant cell(int row, int column, int role) const override;

 private:
  std::vector<std::pair<QString, QString>> rows_;
};

// One row per rank: rank, host, CPU, NUMA node.
class HostsModel : public DocumentTableModel {
  Q_OBJECT
 public:
  explicit HostsModel(QObject* parent = nullptr);
  QString host(int rank) const;

 protected:
  void fill(const DocumentInfo& info) override;
  void empty() override;
  int rows() const override { return ranks_; }
  QVariant cell(int row, int column, int role) const override;

 private:
  int ranks_ = 0;
  std::vector<QString> hosts_;
  std::vector<int> cpus_, numa_;
};

}  // namespace nt::viewer
