#include "nt/viewer/models.hpp"

#include "nt/types.hpp"
#include "nt/units.hpp"

namespace nt::viewer {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
}  // namespace

DocumentTableModel::DocumentTableModel(std::vector<QString> titles, QObject* parent)
    : QAbstractTableModel(parent), titles_(std::move(titles)) {}

void DocumentTableModel::setDocument(const DocumentInfo& info) {
  beginResetModel();
  empty();
  fill(info);
  endResetModel();
}

void DocumentTableModel::clear() {
  beginResetModel();
  empty();
  endResetModel();
}

QVariant DocumentTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  return cell(index.row(), index.column(), role);
}

QVariant DocumentTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  return titles_[static_cast<std::size_t>(section)];
}

InfoModel::InfoModel(QObject* parent) : DocumentTableModel({QStringLiteral("Property"), QStringLiteral("Value")}, parent) {}

void InfoModel::fill(const DocumentInfo& d) {
  const auto& p = d.info.params;
  const auto& m = d.info.meta;
  auto add = [this](const QString& k, const QString& v) { rows_.emplace_back(k, v); };
  add(QStringLiteral("file"), d.path);
  add(QStringLiteral("format"), d.format);
  add(QStringLiteral("ranks"), QString::number(p.proc_num));
  add(QStringLiteral("mode"), q(nt::mode_name(p.mode)));
  add(QStringLiteral("statistic"), q(nt::statistic_name(p.statistic)));
  add(QStringLiteral("message lengths"), d.cut_short.isEmpty() ? QString::number(d.lengths.size())
                                                               : QStringLiteral("%1 (%2)").arg(d.lengths.size()).arg(d.cut_short));
  if (!d.lengths.empty())
    add(QStringLiteral("length range"),
        q(nt::format_bytes(d.lengths.front())) + QStringLiteral(" .. ") + q(nt::format_bytes(d.lengths.back())));
  add(QStringLiteral("begin_mes_length"), QString::number(p.begin_length));
  add(QStringLiteral("end_mes_length"), QString::number(p.end_length));
  add(QStringLiteral("step_length"), QString::number(p.step_length));
  add(QStringLiteral("noise_mes_length"), QString::number(p.noise_message_length));
  add(QStringLiteral("num_noise_mes"), QString::number(p.num_noise_messages));
  add(QStringLiteral("num_noise_proc"), QString::number(p.num_noise_procs));
  add(QStringLiteral("num_repeates"), QString::number(p.num_repeats));
  add(QStringLiteral("format_version"),
      m.format_version == 0 ? QStringLiteral("0 (legacy network_test2)") : QString::number(m.format_version));
  auto opt = [&](const char* k, const std::string& v) {
    if (!v.empty()) add(QString::fromLatin1(k), q(v));
  };
  opt("program_version", m.program_version);
  opt("mpi_version", m.mpi_version);
  opt("timer", m.timer);
  if (m.timer_resolution > 0) add(QStringLiteral("timer_resolution"), q(nt::format_seconds(m.timer_resolution)));
  opt("command_line", m.command_line);
  opt("start_time", m.start_time);
  if (m.warmup) add(QStringLiteral("warmup"), QString::number(m.warmup));
  if (m.seed) add(QStringLiteral("seed"), QString::number(m.seed));
  opt("sync_method", m.sync_method);
  opt("sweep", m.sweep);
  add(QStringLiteral("hosts"), m.hosts.empty() ? QStringLiteral("(none)") : QString::number(m.hosts.size()));
  add(QStringLiteral("deviation file"), d.has_deviation ? d.deviation_path : QStringLiteral("(none)"));
  if (!d.compare_path.isEmpty()) add(QStringLiteral("compared with"), d.compare_path);
  if (!d.groups.empty()) add(QStringLiteral("topology groups"), QString::number(d.groups.size()));
  for (const auto& [k, v] : m.extra) add(q(k), q(v));
}

QVariant InfoModel::cell(int row, int column, int role) const {
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const auto& r = rows_[static_cast<std::size_t>(row)];
  return column == 0 ? r.first : r.second;
}

QString InfoModel::value(const QString& property) const {
  for (const auto& [k, v] : rows_)
    if (k == property) return v;
  return {};
}

HostsModel::HostsModel(QObject* parent)
    : DocumentTableModel({QStringLiteral("Rank"), QStringLiteral("Host"), QStringLiteral("CPU"), QStringLiteral("NUMA")},
                         parent) {}

void HostsModel::fill(const DocumentInfo& d) {
  ranks_ = d.info.params.proc_num;
  for (const auto& h : d.info.meta.hosts) hosts_.push_back(q(h));
  cpus_ = d.info.meta.cpus;
  numa_ = d.info.meta.numa_nodes;
}

void HostsModel::empty() {
  ranks_ = 0;
  hosts_.clear();
  cpus_.clear();
  numa_.clear();
}

QString HostsModel::host(int rank) const {
  return rank >= 0 && static_cast<std::size_t>(rank) < hosts_.size() ? hosts_[static_cast<std::size_t>(rank)]
                                                                      : QString();
}

QVariant HostsModel::cell(int row, int column, int role) const {
  const auto r = static_cast<std::size_t>(row);
  if (role == Qt::TextAlignmentRole) return column == 1 ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case 0: return row;
    case 1: return host(row);
    case 2: return r < cpus_.size() && cpus_[r] >= 0 ? QVariant(cpus_[r]) : QVariant(QStringLiteral("?"));
    case 3: return r < numa_.size() && numa_[r] >= 0 ? QVariant(numa_[r]) : QVariant(QStringLiteral("?"));
  }
  return {};
}

}  // namespace nt::viewer
