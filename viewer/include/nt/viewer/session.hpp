// The viewer's worker: owns the Document in its own thread, opens files and renders views
// there, and hands value-type results (DocumentInfo, ViewResult) back through signals.
// Requests coalesce: while a view is being computed, newer requests replace older pending ones,
// and a running file/window scan stops early when a newer request arrives (the per-matrix cache
// keeps what was read). cancel() stops the current work.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

class Document;

class Session : public QObject {
  Q_OBJECT
 public:
  // Starts its own worker thread; the destructor stops and joins it.
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  // All thread-safe: they queue work on the worker thread.
  void open(const QString& path);
  void openCompare(const QString& path);
  void loadGroups(const QString& path);
  // Further files for the pair view (emit changed); clearPlotFiles removes them all.
  void addPlotFile(const QString& path);
  void clearPlotFiles();
  void request(const ViewSpec& spec);
  void setPlotSize(int w, int h);
  // Matrices of more ranks are streamed (Document::set_value_limit); for the next open and the
  // open document.
  void setValueLimit(int ranks);
  void cancel();

 signals:
  void opened(const nt::viewer::DocumentInfo& info);
  void changed(const nt::viewer::DocumentInfo& info);  // compare file or groups added
  void rendered(const nt::viewer::ViewResult& result);
  void failed(const QString& message);
  void cancelled();
  void progress(int done, int total);
  void busyChanged(bool busy);

 private:
  void doOpen(const QString& path);
  // Queues a change of the open document (compare file, groups, plot files): emits changed, or
  // failed with the reason; nothing without a document.
  void change(std::function<void(Document&)> what);
  void processPending();
  QThread thread_;
  QObject* worker_ = nullptr;           // lives in thread_; context for queued calls
  std::unique_ptr<Document> doc_;       // used only in thread_
  std::mutex mutex_;
  std::optional<ViewSpec> pending_;
  bool scheduled_ = false;
  std::atomic<unsigned> generation_{0};
  std::atomic<bool> cancel_{false};
  int plot_w_ = 900, plot_h_ = 560;
  int value_limit_ = -1;  // -1: the Document's default
};

}  // namespace nt::viewer
