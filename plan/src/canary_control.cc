// ReadCanaryControl (canary_control.h): the annotations parsed strictly, so a
// typo is reported in status rather than taken for "no request".
#include "ax/controller/canary_control.h"

#include <charconv>
#include <string_view>

#include "ax/controller/object_ref.h"

namespace ax::controller {
namespace {

template <typename Int>
std::optional<Int> ParseInt(std::string_view s) {
  Int v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return v;
}

void Bad(CanaryControl& c, const char* key, const std::string& value,
         const char* want) {
  if (!c.error.empty()) c.error += "; ";
  c.error += std::string("annotation ") + key + " must be " + want +
             ", got \"" + value + "\" (ignored)";
}

}  // namespace

CanaryControl ReadCanaryControl(const nlohmann::json& object,
                                int64_t generation, size_t steps) {
  CanaryControl c;
  if (auto v = AnnotationOf(object, kCanaryPausedAnnotation)) {
    if (*v == "true") {
      c.paused = true;
    } else if (*v != "false") {
      Bad(c, kCanaryPausedAnnotation, *v, "true or false");
    }
  }
  if (auto v = AnnotationOf(object, kCanaryAbortAnnotation)) {
    if (*v == "true") {
      c.abort = true;
    } else if (auto g = ParseInt<int64_t>(*v)) {
      c.abort = *g == generation;
    } else {
      Bad(c, kCanaryAbortAnnotation, *v,
          "true or the spec generation to abort");
    }
  }
  if (auto v = AnnotationOf(object, kCanaryPromoteAnnotation)) {
    // "STEP" for every generation, "GENERATION/STEP" for one.
    const size_t slash = v->find('/');
    const std::string_view text(*v);
    const std::optional<int64_t> g =
        slash == std::string::npos ? std::optional<int64_t>(generation)
                                   : ParseInt<int64_t>(text.substr(0, slash));
    const std::optional<uint32_t> step =
        g ? ParseInt<uint32_t>(
                slash == std::string::npos ? text : text.substr(slash + 1))
          : std::nullopt;
    if (!step || *step == 0 || *step > steps) {
      Bad(c, kCanaryPromoteAnnotation, *v,
          ("STEP or GENERATION/STEP with STEP from 1 to " +
           std::to_string(steps))
              .c_str());
    } else if (*g == generation) {
      c.promote_to = *step - 1;
    }
  }
  return c;
}

}  // namespace ax::controller
