// ParseBoundedJson (bounded_json.h): nlohmann's own DOM builder behind a SAX
// filter that counts depth and values and stops the parser (returns false) the
// moment a bound is passed; the partial document is dropped.
#include "ax/bounded_json.h"

#include <exception>

namespace ax {
namespace {

using Json = nlohmann::json;
using DomBuilder = nlohmann::detail::json_sax_dom_parser<Json>;

class BoundedSax {
 public:
  BoundedSax(Json& root, const JsonBounds& bounds)
      : dom_(root, /*allow_exceptions=*/false), bounds_(bounds) {}

  bool null() { return Value() && dom_.null(); }
  bool boolean(bool v) { return Value() && dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) {
    return Value() && dom_.number_integer(v);
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    return Value() && dom_.number_unsigned(v);
  }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return Value() && dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return Value() && dom_.string(v); }
  bool binary(Json::binary_t& v) { return Value() && dom_.binary(v); }
  bool start_object(std::size_t n) { return Open() && dom_.start_object(n); }
  bool key(Json::string_t& k) { return dom_.key(k); }
  bool end_object() { return Close() && dom_.end_object(); }
  bool start_array(std::size_t n) { return Open() && dom_.start_array(n); }
  bool end_array() { return Close() && dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    // nlohmann counts the bytes read, the failing one included.
    error_ = "malformed JSON at byte offset " +
             std::to_string(position == 0 ? 0 : position - 1) + ": " + e.what();
    return false;
  }

  // Where the parser stopped: set by parse_error, else by a bound (which the
  // caller words, knowing the offset only from the input it fed).
  const std::string& error() const { return error_; }
  bool over_depth() const { return over_depth_; }
  bool over_values() const { return over_values_; }

 private:
  bool Value() {
    if (++values_ > bounds_.max_values) over_values_ = true;
    return !over_values_;
  }
  bool Open() {
    if (++depth_ > bounds_.max_depth) over_depth_ = true;
    return !over_depth_ && Value();
  }
  bool Close() {
    --depth_;
    return true;
  }

  DomBuilder dom_;
  const JsonBounds& bounds_;
  size_t depth_ = 0;
  size_t values_ = 0;
  bool over_depth_ = false;
  bool over_values_ = false;
  std::string error_;
};

}  // namespace

std::optional<Json> ParseBoundedJson(std::string_view text,
                                     const JsonBounds& bounds,
                                     std::string* error) {
  try {
    Json root;
    BoundedSax sax(root, bounds);
    if (Json::sax_parse(text.begin(), text.end(), &sax)) return root;
    if (sax.over_depth()) {
      *error = "nesting deeper than " + std::to_string(bounds.max_depth) +
               " arrays or objects";
    } else if (sax.over_values()) {
      *error = "more than " + std::to_string(bounds.max_values) + " values";
    } else {
      *error = sax.error().empty() ? "malformed JSON" : sax.error();
    }
  } catch (const std::exception& e) {
    // bad_alloc at worst: the SAX path reports syntax through parse_error.
    *error = std::string("cannot parse JSON: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace ax
