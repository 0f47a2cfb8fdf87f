// JSON text from any nlohmann::json value, the one way every program writes JSON: invalid UTF-8
// in strings that come from the input (host names, attributes) is replaced by U+FFFD instead of
// aborting the output. A template, so that core itself does not depend on nlohmann_json.
#pragma once

#include <string>

namespace nt {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace nt
