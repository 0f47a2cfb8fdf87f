// The names of the Settings' enum values (settings.hpp): what the command line takes, --help lists
// and the files say (nt::name_of).
#include "nt/measure/settings.hpp"

namespace nt::measure {

const nt::Names<ProgressStyle>& progress_names() {
  static const nt::Names<ProgressStyle> names{{"auto", ProgressStyle::automatic},
                                              {"bar", ProgressStyle::bar},
                                              {"lines", ProgressStyle::lines},
                                              {"none", ProgressStyle::none}};
  return names;
}

const nt::Names<Oversubscribed>& oversubscribed_names() {
  static const nt::Names<Oversubscribed> names{
      {"auto", Oversubscribed::automatic}, {"on", Oversubscribed::on}, {"off", Oversubscribed::off}};
  return names;
}

const nt::Names<ClockSync>& clock_sync_names() {
  static const nt::Names<ClockSync> names{{"auto", ClockSync::automatic}, {"pingpong", ClockSync::pingpong}};
  return names;
}

}  // namespace nt::measure
