#include "nt/viewer/session.hpp"

#include <QMetaObject>

#include <chrono>
#include <exception>

#include "nt/viewer/document.hpp"
#include "nt/error.hpp"

namespace nt::viewer {

namespace {
void registerTypes() {
  static const bool done = [] {
    qRegisterMetaType<nt::viewer::ViewSpec>();
    qRegisterMetaType<nt::viewer::ViewResult>();
    qRegisterMetaType<nt::viewer::DocumentInfo>();
    return true;
  }();
  (void)done;
}
}  // namespace

Session::Session(QObject* parent) : QObject(parent) {
  registerTypes();
  thread_.setObjectName(QStringLiteral("viewer-worker"));
  worker_ = new QObject;
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.start();
}

Session::~Session() {
  cancel_ = true;
  ++generation_;
  // The document must be destroyed in the worker thread, before the thread ends.
  QMetaObject::invokeMethod(worker_, [this] { doc_.reset(); }, Qt::BlockingQueuedConnection);
  thread_.quit();
  thread_.wait();
}

void Session::open(const QString& path) {
  ++generation_;
  {
    std::lock_guard lock(mutex_);
    pending_.reset();
  }
  QMetaObject::invokeMethod(worker_, [this, path] { doOpen(path); }, Qt::QueuedConnection);
}

void Session::change(std::function<void(Document&)> what) {
  QMetaObject::invokeMethod(worker_, [this, what = std::move(what)] {
    if (!doc_) return;
    try {
      what(*doc_);
      emit changed(doc_->info());
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
  }, Qt::QueuedConnection);
}

void Session::openCompare(const QString& path) {
  change([path](Document& d) { d.set_compare(path.toStdString()); });
}
void Session::loadGroups(const QString& path) {
  change([path](Document& d) { d.set_groups(std::filesystem::path(path.toStdString())); });
}
void Session::addPlotFile(const QString& path) {
  change([path](Document& d) { d.add_plot_file(path.toStdString()); });
}
void Session::clearPlotFiles() {
  change([](Document& d) { d.clear_plot_files(); });
}

void Session::setPlotSize(int w, int h) {
  QMetaObject::invokeMethod(worker_, [this, w, h] {
    plot_w_ = w;
    plot_h_ = h;
    if (doc_) doc_->set_plot_size(w, h);
  }, Qt::QueuedConnection);
}

void Session::setValueLimit(int ranks) {
  QMetaObject::invokeMethod(worker_, [this, ranks] {
    value_limit_ = ranks;
    if (doc_) doc_->set_value_limit(ranks);
  }, Qt::QueuedConnection);
}

void Session::cancel() { cancel_ = true; }

void Session::request(const ViewSpec& spec) {
  ++generation_;
  std::lock_guard lock(mutex_);
  pending_ = spec;
  if (!scheduled_) {
    scheduled_ = true;
    QMetaObject::invokeMethod(worker_, [this] { processPending(); }, Qt::QueuedConnection);
  }
}

void Session::doOpen(const QString& path) {
  emit busyChanged(true);
  cancel_ = false;
  try {
    doc_.reset();
    auto d = Document::open(path.toStdString());
    d->set_plot_size(plot_w_, plot_h_);
    if (value_limit_ >= 0) d->set_value_limit(value_limit_);
    d->deviation();  // look for the deviation file now, so that info() reports it
    doc_ = std::move(d);
    emit opened(doc_->info());
  } catch (const nt::Error& e) {
    emit failed(QString::fromStdString(e.what()));
  } catch (const std::exception& e) {
    emit failed(QStringLiteral("%1: %2").arg(path, QString::fromStdString(e.what())));
  }
  emit busyChanged(false);
}

void Session::processPending() {
  std::optional<ViewSpec> spec;
  unsigned gen;
  {
    std::lock_guard lock(mutex_);
    spec = pending_;
    pending_.reset();
    scheduled_ = false;
    gen = generation_.load();
  }
  if (!spec || !doc_) return;
  cancel_ = false;
  emit busyChanged(true);
  Progress pr;
  auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  pr.report = [this, &last](std::size_t done, std::size_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (done == total || now - last > std::chrono::milliseconds(50)) {
      last = now;
      emit progress(static_cast<int>(done), static_cast<int>(total));
    }
  };
  pr.cancelled = [this, gen] { return cancel_.load() || generation_.load() != gen; };
  try {
    ViewResult r = doc_->render(*spec, pr);
    emit rendered(r);
  } catch (const Cancelled&) {
    if (cancel_) emit cancelled();
  } catch (const nt::Error& e) {
    emit failed(QString::fromStdString(e.what()));
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
  emit busyChanged(false);
}

}  // namespace nt::viewer
