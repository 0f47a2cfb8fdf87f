// The mode table: filled at static initialisation by the Registrar of each mode file, ordered
// by id; the single source of names, aliases, --list, the help footer and the option sections.
#include <algorithm>
#include <sstream>

#include <CLI/CLI.hpp>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/measure/ctx.hpp"

namespace nt::measure {

namespace {
const std::string kGroupPrefix = "Mode options: ";  // the --help section of a mode's options

Registry& table() {
  static Registry r;  // constructed on first use, so registration order across files does not matter
  return r;
}

// A mode without per-run state: its run function.
class Stateless final : public ModeRun {
 public:
  explicit Stateless(const std::function<void(Ctx&, const Task&, const Batch&)>& f) : f_(f) {}
  void run(Ctx& c, const Task& t, const Batch& b) override { f_(c, t, b); }

 private:
  const std::function<void(Ctx&, const Task&, const Batch&)>& f_;
};
}  // namespace

void ModeRun::finish(Ctx&, const FileInfo&) {}

std::unique_ptr<ModeRun> ModeSpec::begin_run(Ctx& c) const {
  if (start) return start(c);
  if (!run) throw Error("internal: mode " + name + " has neither start nor run");
  return std::make_unique<Stateless>(run);
}

void Registry::add(ModeSpec spec) {
  auto names = spec.aliases;
  names.push_back(spec.name);
  for (const auto& m : modes_) {
    if (m.id == spec.id) throw Error("internal: modes " + m.name + " and " + spec.name + " have the same id");
    for (const auto& n : names)
      if (n == m.name || std::find(m.aliases.begin(), m.aliases.end(), n) != m.aliases.end())
        throw Error("internal: mode name " + n + " registered twice");
  }
  if (spec.id <= 0) throw Error("internal: mode " + spec.name + " needs a positive id");
  // The id is the files' test_type: one that the readers (core's file vocabulary) know as
  // another mode would make every file of this one read as that mode.
  if (const auto known = mode_name(spec.mode()); known != "unknown" && known != spec.name)
    throw Error("internal: mode " + spec.name + " takes id " + std::to_string(spec.id) + ", which files know as " +
                std::string(known));
  const auto at = std::find_if(modes_.begin(), modes_.end(), [&](const ModeSpec& m) { return m.id > spec.id; });
  modes_.insert(at, std::move(spec));
}

const ModeSpec* Registry::find(Mode m) const {
  for (const auto& s : modes_)
    if (s.id == static_cast<int>(m)) return &s;
  return nullptr;
}

const ModeSpec* Registry::find(const std::string& name) const {
  for (const auto& s : modes_)
    if (s.name == name || std::find(s.aliases.begin(), s.aliases.end(), name) != s.aliases.end()) return &s;
  return nullptr;
}

const Registry& registry() { return table(); }

ModeSpec identify(Mode m, ModeSpec spec) {
  const ModeTraits* t = mode_traits(m);
  if (!t) throw Error("internal: mode code " + std::to_string(static_cast<int>(m)) + " has no row in nt::kModeTable");
  spec.name = std::string(t->name);
  spec.id = static_cast<int>(m);
  spec.aliases.clear();
  if (!t->alias.empty()) spec.aliases.emplace_back(t->alias);
  return spec;
}

Registrar::Registrar(ModeSpec spec) { table().add(std::move(spec)); }

void add_type_option(CLI::App& app, Settings& s) {
  nt::Names<Mode> names;
  for (const auto& m : registry().all()) names.emplace_back(m.name, m.mode());
  for (const auto& m : registry().all())
    for (const auto& alias : m.aliases) names.emplace_back(alias, m.mode());
  nt::add_enum_option(app, "-t,--type", s.mode, names,
                      "measurement mode (see --list); original names and aliases accepted");
}

void add_mode_options(CLI::App& app, Settings& s) {
  std::vector<std::string> done;  // modes may share a group (noise, noise_blocking): added once
  for (const auto& m : registry().all()) {
    if (!m.add_options || std::find(done.begin(), done.end(), m.group()) != done.end()) continue;
    done.push_back(m.group());
    m.add_options(*app.add_option_group(kGroupPrefix + m.group()), s);
  }
}

std::string list_modes_text(const CLI::App& app) {
  std::ostringstream o;
  o << "Modes (name [file id, aliases]: description):\n";
  for (const auto& m : registry().all()) {
    o << "  " << m.name << " [" << m.id;
    for (const auto& alias : m.aliases) o << ", " << alias;
    o << "]: " << m.description << "\n";
    o << "      ranks >= " << m.min_ranks << (m.concurrent_ok ? ", --concurrent supported" : "") << "\n";
    if (!m.add_options) continue;
    for (const CLI::App* g : app.get_subcommands([&](const CLI::App* a) { return a->get_group() == kGroupPrefix + m.group(); }))
      for (const CLI::Option* opt : g->get_options()) {
        if (opt == g->get_help_ptr() || opt == g->get_help_all_ptr()) continue;
        o << "      " << opt->get_name(false, true) << " " << opt->get_type_name() << "  " << opt->get_description();
        if (!opt->get_default_str().empty()) o << " (default " << opt->get_default_str() << ")";
        o << "\n";
      }
  }
  return o.str();
}

std::string modes_footer() {
  std::string names;
  for (const auto& m : registry().all()) names += " " + m.name;
  return "Modes:" + names + " (--list describes them).";
}

}  // namespace nt::measure
