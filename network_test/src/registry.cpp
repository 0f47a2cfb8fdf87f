#include <sstream>

#include "nt/measure/measure.hpp"

namespace nt::measure {

void Registry::add(ModeSpec spec) {
  for (const auto& m : modes_)
    if (m.mode == spec.mode || m.name == spec.name) throw Error("internal: mode " + spec.name + " registered twice");
  modes_.push_back(std::move(spec));
}

const ModeSpec* Registry::find(Mode m) const {
  for (const auto& s : modes_)
    if (s.mode == m) return &s;
  return nullptr;
}

const ModeSpec* Registry::find(const std::string& name) const {
  const auto m = mode_from_name(name);
  return m ? find(*m) : nullptr;
}

const Registry& registry() {
  static const Registry reg = [] {
    Registry r;
    // The explicit list: every mode file contributes one function, so nothing depends on
    // static initialisers surviving the linker.
    register_one_to_one(r);
    register_async_one_to_one(r);
    register_send_recv_and_recv_send(r);
    register_all_to_all(r);
    register_noise(r);
    register_noise_blocking(r);
    register_put(r);
    register_get(r);
    register_bcast(r);
    register_loggp(r);
    return r;
  }();
  return reg;
}

std::string list_modes_text() {
  std::ostringstream o;
  o << "Modes (name [legacy code, aliases]: description):\n";
  for (const auto& m : registry().all()) {
    o << "  " << m.name << " [" << static_cast<int>(m.mode);
    for (const char* alias : {"put_one_to_one", "get_one_to_one", "test_noise", "test_noise_blocking"})
      if (auto a = mode_from_name(alias); a && *a == m.mode) o << ", " << alias;
    o << "]: " << m.description << "\n";
    o << "      ranks >= " << m.min_ranks << (m.concurrent_ok ? ", --concurrent supported" : "") << "\n";
    for (const auto& opt : m.options) o << "      " << opt.flags << "  " << opt.help << "\n";
  }
  return o.str();
}

}  // namespace nt::measure
