// JSON text from any nlohmann::json value, the one way every program writes JSON: invalid UTF-8
// in strings that come from the input (host names, attributes) is replaced by U+FFFD instead of
// aborting the output; numbers that are not finite become null. Templates, so that core itself
// does not depend on nlohmann_json.
#pragma once

#include <cmath>
#include <string>

namespace nt {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// A JSON number, or null where v is not finite (JSON has no NaN or infinity) or not `present` (a
// value the caller marks as missing otherwise, e.g. a negative "not measured"): json_number<J>(v)
// for J = nlohmann::json or nlohmann::ordered_json.
template <class Json>
Json json_number(double v, bool present = true) {
  return present && std::isfinite(v) ? Json(v) : Json(nullptr);
}

}  // namespace nt
