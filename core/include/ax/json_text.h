// Compact JSON text of a value that may hold bytes from outside (a query
// name, a Host header, a query parameter, a file name): invalid UTF-8 becomes
// U+FFFD instead of nlohmann's type_error 316, so that nothing serialising a
// stranger's bytes can throw. For nlohmann::json and ordered_json alike.
#pragma once

#include <string>

namespace ax {

template <typename Json>
std::string JsonText(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ax
