#include "nt/output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "nt/error.hpp"

namespace fs = std::filesystem;

namespace nt {

std::string errno_text(int err) {
  if (err == 0) return "I/O error (no system error code)";
  return std::strerror(err);
}

std::string temp_host_tag(std::string_view hostname) {
  std::string h(hostname.empty() ? std::string_view("host") : hostname);
  for (char& c : h)
    if (c == '/' || c == '-') c = '_';
  if (h == hostname && h.size() <= 40) return h;
  // Shortened or changed: a hash of the whole name keeps two hosts apart (FNV-1a, the same in
  // every build, so that another program version on the other host computes the same tag).
  std::uint32_t hash = 2166136261u;
  for (const char c : hostname) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  if (h.size() > 31) h.resize(31);
  return h + fmt::format("_{:08x}", hash);
}

namespace {

constexpr std::size_t kNameMax = 255;
constexpr const char* kTempTag = ".nt-tmp-";
// An OutputSet's commit journal: ".NAME.nt-commit-HOST-PID" (see OutputSet::commit_all).
constexpr const char* kJournalTag = ".nt-commit-";

// ---- temporaries removed by a signal handler ------------------------------------------------
// A fixed table written only outside the handler; the handler reads paths of live slots and
// unlinks them (async-signal-safe), then re-raises the signal with its default action.
constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> live{0};
  char path[kPathMax];
};
std::array<Slot, kSlots> g_slots;
std::mutex g_slot_mutex;

extern "C" void cleanup_on_signal(int sig) {
  for (auto& s : g_slots)
    if (s.live.load(std::memory_order_acquire) == 1) ::unlink(s.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      // Leave a program's own handler (or an ignored signal) alone.
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = cleanup_on_signal;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

int register_temp(const fs::path& p) {
  const std::string s = p.string();
  if (s.size() >= kPathMax) return -1;
  install_handlers_once();
  std::lock_guard<std::mutex> lock(g_slot_mutex);
  for (int i = 0; i < kSlots; ++i) {
    auto& slot = g_slots[static_cast<std::size_t>(i)];
    if (slot.live.load(std::memory_order_acquire) != 0) continue;
    std::memcpy(slot.path, s.c_str(), s.size() + 1);
    slot.live.store(1, std::memory_order_release);
    return i;
  }
  return -1;  // table full: the temporary is still removed on ordinary error paths
}

void unregister_temp(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_slot_mutex);
  g_slots[static_cast<std::size_t>(slot)].live.store(0, std::memory_order_release);
}

std::string host_tag() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == 0) return "host";
  return temp_host_tag(buf);
}

// The part of a temporary's name before "<pid>-<n>": ".NAME.nt-tmp-HOST-". NAME is shortened so
// that the whole stays within NAME_MAX.
std::string temp_prefix(const std::string& name) {
  const std::string tail = std::string(kTempTag) + host_tag() + "-";
  const std::size_t room = kNameMax - 1 - tail.size() - 24;  // "." + ... + "PID-N"
  return "." + (name.size() > room ? name.substr(0, room) : name) + tail;
}

// The names in `dir` that carry `tag` + this host + the PID of a process that is gone: what a
// killed run of this host left. Other hosts' files (a shared filesystem) and those of live
// processes are not listed.
std::vector<std::string> left_by_dead_runs(const fs::path& dir, const char* tag) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  const std::string mark = std::string(tag) + host_tag() + "-";
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    const auto at = n.find(mark);
    if (n.empty() || n[0] != '.' || at == std::string::npos) continue;
    const long pid = std::strtol(n.c_str() + at + mark.size(), nullptr, 10);
    if (pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still alive
    out.push_back(n);
  }
  ::closedir(d);
  return out;
}

// Removes the temporaries that killed runs of this host left in `dir` (any output name): their
// process is gone, so nobody will finish them.
void remove_stale_temps(const fs::path& dir) {
  for (const auto& n : left_by_dead_runs(dir, kTempTag)) ::unlink((dir / n).c_str());
}

fs::path dir_of(const fs::path& target) { return target.has_parent_path() ? target.parent_path() : fs::path("."); }

void fsync_dir_quietly(const fs::path& dir) noexcept {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void fsync_path(const fs::path& p, bool directory, const fs::path& report_as) {
  const int fd = ::open(p.c_str(), O_RDONLY | (directory ? O_DIRECTORY : 0) | O_CLOEXEC);
  if (fd < 0) {
    if (directory) return;  // some filesystems do not let a directory be opened; nothing to sync
    throw FileError(report_as, "cannot reopen the written output: " + errno_text(errno));
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && !(directory && (err == EINVAL || err == EBADF)))
    throw FileError(report_as, "cannot sync to disk: " + errno_text(err));
}

// One line of a commit journal: "R" or "N" (replace allowed or not), TAB, temporary, TAB, final.
struct JournalEntry {
  bool force = false;
  fs::path temp, target;
};

std::vector<JournalEntry> read_journal(const fs::path& p) {
  std::vector<JournalEntry> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find('\t');
    const auto b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos || a != 1 || (line[0] != 'R' && line[0] != 'N')) continue;
    out.push_back({line[0] == 'R', line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}

// Whether `temp` is one of our temporaries for `target`: in its directory, named
// ".<target's name, possibly shortened>.nt-tmp-...".
bool made_for(const fs::path& temp, const fs::path& target) {
  const std::string t = temp.filename().string(), f = target.filename().string();
  const auto tag = t.find(kTempTag);
  // Compared lexically normal: a journal of earlier versions wrote "/dir/./.NAME..." for an output
  // named without a directory, and its temporaries were then removed instead of moved.
  return temp.lexically_normal().parent_path() == target.lexically_normal().parent_path() &&
         tag != std::string::npos && tag > 1 && t[0] == '.' && f.compare(0, tag - 1, t, 1, tag - 1) == 0;
}

}  // namespace

void recover_interrupted_outputs(const fs::path& dir) {
  for (const auto& n : left_by_dead_runs(dir, kJournalTag)) {
    const fs::path journal = dir / n;
    // Only a journal of this user, and only pairs of one of our temporaries and the final name it
    // was made for, in one directory: a journal planted in a shared directory moves nothing else.
    struct stat st {};
    if (::lstat(journal.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    for (const auto& e : read_journal(journal)) {
      if (!made_for(e.temp, e.target)) continue;
      // Roll forward: every temporary was complete and synced before the journal was written.
      // One that is gone was moved already (by the dead run or by a concurrent recovery).
      if (e.force) ::rename(e.temp.c_str(), e.target.c_str());
      else ::renameat2(AT_FDCWD, e.temp.c_str(), AT_FDCWD, e.target.c_str(), RENAME_NOREPLACE);
      ::unlink(e.temp.c_str());  // still there: its final name appeared meanwhile; not ours to replace
    }
    fsync_dir_quietly(dir);  // the moves are durable before the journal goes
    ::unlink(journal.c_str());
  }
  remove_stale_temps(dir);
}

void check_output(const fs::path& target, bool force) {
  if (target.empty()) throw UsageError("empty output file name");
  // "-" is standard output by Unix convention; a file of that name would be a trap.
  if (target == "-")
    throw UsageError("'-' (standard output) is not an output here: the outputs are written under a temporary name "
                     "and moved into place; give a file name");
  for (const auto& part : target)
    if (part.string().size() > kNameMax)
      throw FileError(target, "a name in this path is longer than " + std::to_string(kNameMax) + " bytes");
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
    throw FileError(target, "is a directory, not a file name");
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw FileError(target, "is a directory");
    if (S_ISLNK(st.st_mode))
      throw FileError(target, "is a symbolic link; refusing to replace it (write to the real path)");
    if (!S_ISREG(st.st_mode))
      throw FileError(target, "is not a regular file (a device, FIFO or socket); refusing to replace it");
    if (!force) throw FileError(target, "exists already; use --force to overwrite it");
  } else if (errno != ENOENT && errno != ENOTDIR) {
    throw FileError(target, "cannot inspect: " + errno_text(errno));
  }
  const fs::path dir = dir_of(target);
  std::error_code ec;
  if (!fs::exists(dir, ec) && ec.value() != ENOTDIR) {
    fs::create_directories(dir, ec);
    if (ec) throw FileError(target, "cannot create directory " + dir.string() + ": " + ec.message());
  } else if (!fs::is_directory(dir, ec)) {
    throw FileError(target, dir.string() + " is not a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw FileError(target, "cannot write in directory " + dir.string() + ": " + errno_text(errno));
}

void refuse_same_file(const fs::path& target, const std::vector<fs::path>& inputs) {
  struct stat t {};
  if (::stat(target.c_str(), &t) != 0) return;
  for (const auto& in : inputs) {
    struct stat s {};
    if (::stat(in.c_str(), &s) == 0 && s.st_dev == t.st_dev && s.st_ino == t.st_ino)
      throw FileError(target, "is the input file " + in.string() + "; choose another output name");
  }
}

fs::path output_name(const fs::path& p) {
  const std::string n = p.filename().string();
  const auto tag = n.find(kTempTag);
  if (n.empty() || n[0] != '.' || tag == std::string::npos || tag < 2) return p;
  return p.parent_path() / n.substr(1, tag - 1);
}

// ---- PendingOutput --------------------------------------------------------------------------

PendingOutput::PendingOutput(fs::path target, bool force, const std::vector<fs::path>& inputs)
    : target_(std::move(target)), force_(force) {
  check_output(target_, force_);
  refuse_same_file(target_, inputs);
  const fs::path dir = dir_of(target_);
  const std::string prefix = temp_prefix(target_.filename().string());
  recover_interrupted_outputs(dir);
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_ = dir / (prefix + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      slot_ = register_temp(temp_);
      return;
    }
    if (errno != EEXIST) throw FileError(target_, "cannot create a file in " + dir.string() + ": " + errno_text(errno));
  }
  throw FileError(target_, "cannot find a free temporary name in " + dir.string());
}

PendingOutput::PendingOutput(PendingOutput&& o) noexcept
    : target_(std::move(o.target_)),
      temp_(std::move(o.temp_)),
      force_(o.force_),
      committed_(o.committed_),
      synced_(o.synced_),
      replaced_(o.replaced_),
      kept_(std::move(o.kept_)),
      slot_(std::exchange(o.slot_, -1)) {
  o.committed_ = true;  // the moved-from object owns nothing
  o.temp_.clear();
  o.kept_.clear();
}

PendingOutput::~PendingOutput() {
  if (!committed_) discard();
  if (!kept_.empty()) ::unlink(kept_.c_str());  // the replaced file, no longer needed (or put back)
}

void PendingOutput::discard() noexcept {
  if (!temp_.empty() && !committed_) ::unlink(temp_.c_str());
  unregister_temp(std::exchange(slot_, -1));
}

void PendingOutput::sync() {
  if (synced_ || committed_) return;
  fsync_path(temp_, false, target_);
  synced_ = true;
}

void PendingOutput::keep_replaced() {
  if (!force_ || committed_ || !kept_.empty()) return;
  struct stat st {};
  if (::lstat(target_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  // Named like our temporaries, so that a killed run's leftover is removed by the next writer.
  const fs::path kept = temp_.string() + "-old";
  if (::link(target_.c_str(), kept.c_str()) == 0) kept_ = kept;
}

void PendingOutput::commit() {
  if (committed_) return;
  sync();
  struct stat st {};
  const bool exists = ::lstat(target_.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    throw FileError(target_, "is no longer a regular file; refusing to replace it");
  if (force_) {
    if (::rename(temp_.c_str(), target_.c_str()) != 0)
      throw FileError(target_, "cannot move the finished output into place: " + errno_text(errno));
    replaced_ = exists;
  } else {
    if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) != 0) {
      const int err = errno;
      if (err == EEXIST)
        throw FileError(target_, "appeared while this run was writing it; not replaced (use --force)");
      if (err != EINVAL && err != ENOSYS && err != ENOTSUP)
        throw FileError(target_, "cannot move the finished output into place: " + errno_text(err));
      // No RENAME_NOREPLACE on this filesystem: link() fails atomically when the name exists.
      if (::link(temp_.c_str(), target_.c_str()) != 0) {
        const int lerr = errno;
        if (lerr == EEXIST)
          throw FileError(target_, "appeared while this run was writing it; not replaced (use --force)");
        throw FileError(target_, "cannot move the finished output into place: " + errno_text(lerr));
      }
      ::unlink(temp_.c_str());
    }
  }
  committed_ = true;
  unregister_temp(std::exchange(slot_, -1));
  fsync_path(dir_of(target_), true, target_);
}

void PendingOutput::uncommit() noexcept {
  if (!committed_) return;
  if (!replaced_) {
    ::unlink(target_.c_str());
  } else if (!kept_.empty() && ::rename(kept_.c_str(), target_.c_str()) == 0) {
    kept_.clear();
    fsync_dir_quietly(dir_of(target_));
  }
}

// ---- OutputSet ------------------------------------------------------------------------------

namespace {
// Blocks the cleanup signals in this thread for its lifetime; a pending one is delivered when
// the old mask is restored.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    ok_ = ::pthread_sigmask(SIG_BLOCK, &set, &old_) == 0;
  }
  ~SignalsHeld() {
    if (ok_) ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t old_{};
  bool ok_ = false;
};
}  // namespace

PendingOutput& OutputSet::add(const fs::path& target, bool force, const std::vector<fs::path>& inputs) {
  for (const auto& o : outputs_)
    if (o->target() == target) throw UsageError("output " + target.string() + " is named twice");
  outputs_.push_back(std::make_unique<PendingOutput>(target, force, inputs));
  return *outputs_.back();
}

// Several renames cannot be one atomic step, and a SIGKILL between two of them would leave a
// mixed set (a new statistic file beside an old or missing hosts file). So the set is committed
// through a journal: once every temporary is complete and synced, a journal naming each
// (temporary, final) pair is written and synced, then the renames are done and the journal
// removed. A run killed in between leaves the journal; the next program that writes into the
// directory or opens a file there (recover_interrupted_outputs) rolls the commit forward.
void OutputSet::commit_all() {
  if (outputs_.empty()) return;
  // SIGINT/SIGTERM/SIGHUP wait until the set is committed or rolled back: the cleanup handler
  // would otherwise remove temporaries that the journal promises.
  SignalsHeld held;
  std::optional<PendingOutput> journal;
  if (outputs_.size() > 1) {
    const fs::path& first = outputs_.front()->target();
    const fs::path dir = dir_of(first);
    // The output's name, shortened so that the journal's name stays within NAME_MAX.
    const std::string tail = std::string(kJournalTag) + host_tag() + "-" + std::to_string(::getpid());
    std::string name = first.filename().string();
    if (name.size() + tail.size() + 1 > kNameMax) name.resize(kNameMax - tail.size() - 1);
    journal.emplace(dir / ("." + name + tail), true);
    write_file_atomically_into(*journal, [&](std::ostream& o) {
      for (const auto& out : outputs_) {
        out->sync();
        o << (out->force() ? 'R' : 'N') << '\t' << fs::absolute(out->temp()).lexically_normal().string() << '\t'
          << fs::absolute(out->target()).lexically_normal().string() << '\n';
      }
    });
    journal->commit();
  }
  // Test hook (NT_DEBUG_KILL_IN_COMMIT=N): the process is killed after N of the renames.
  const char* kill_at = std::getenv("NT_DEBUG_KILL_IN_COMMIT");
  std::size_t done = 0;
  try {
    for (; done < outputs_.size(); ++done) {
      if (kill_at && std::strtoul(kill_at, nullptr, 10) == done) ::raise(SIGKILL);
      // A replaced file is kept until the whole set is in place: a failure in the middle puts
      // it back instead of leaving a set that mixes two runs.
      outputs_[done]->keep_replaced();
      outputs_[done]->commit();
    }
  } catch (...) {
    for (std::size_t i = 0; i < done; ++i) outputs_[i]->uncommit();
    for (auto& o : outputs_) o->discard();
    if (journal) ::unlink(journal->target().c_str());
    throw;
  }
  if (journal) {
    ::unlink(journal->target().c_str());
    fsync_path(dir_of(journal->target()), true, journal->target());
  }
}

// ---- FileStream ----------------------------------------------------------------------------

class FileStream::Buf : public std::streambuf {
 public:
  explicit Buf(const fs::path& path) : buffer_(1 << 20) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) error_ = errno;
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  ~Buf() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  int error() const noexcept { return error_; }
  bool close_file() {
    const bool ok = drain();
    if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0 && error_ == 0) error_ = errno;
    return ok && error_ == 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }
  std::vector<char> buffer_;
  int fd_ = -1;
  int error_ = 0;
};

FileStream::FileStream(PendingOutput& pending)
    : std::ostream(nullptr), buf_(std::make_unique<Buf>(pending.temp())), target_(pending.target()) {
  rdbuf(buf_.get());
  if (buf_->error() != 0) throw FileError(target_, "cannot create: " + errno_text(buf_->error()));
}

FileStream::~FileStream() = default;

void FileStream::finish() {
  flush();
  if (!buf_->close_file() || fail()) throw FileError(target_, "write failed: " + errno_text(buf_->error()));
}

// ---- whole files ----------------------------------------------------------------------------

void flush_stdout() {
  errno = 0;
  std::cout.flush();
  const int err = errno;
  if (std::cout) return;
  std::cout.clear();  // once reported, not again (guarded_main after a library call that threw)
  throw Error(std::string("writing to standard output failed") + (err ? ": " + errno_text(err) : std::string()));
}

void write_file_atomically(const fs::path& target, bool force, const std::function<void(std::ostream&)>& body,
                           const std::vector<fs::path>& inputs) {
  PendingOutput out(target, force, inputs);
  write_file_atomically_into(out, body);
  out.commit();
}

void write_file_atomically_into(PendingOutput& out, const std::function<void(std::ostream&)>& body) {
  FileStream f(out);
  body(f);
  f.finish();
}

}  // namespace nt
