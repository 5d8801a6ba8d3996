// Test support: checks a status object against the status schema of a CRD in
// crds/ (read with yaml-cpp). The apiserver prunes fields a structural schema
// does not declare, so a status the plan writes with an undeclared field
// would differ from what it reads back and be rewritten every pass: every
// field must be declared, typed and within its enum, bounds and pattern.
#pragma once

#include <regex.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/rfc3339.h"

namespace ax::testing {

class CrdStatusSchema {
 public:
  // `crd_file`: e.g. AX_SOURCE_DIR "/crds/node.yaml".
  explicit CrdStatusSchema(const std::string& crd_file)
      : schema_(YAML::LoadFile(
            crd_file)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
                     ["properties"]["status"]) {}

  // Every way `status` breaks the schema, as "path: problem".
  std::vector<std::string> Check(const nlohmann::json& status) const {
    std::vector<std::string> problems;
    Walk(schema_, status, "status", problems);
    return problems;
  }

 private:
  static std::string Str(const YAML::Node& n) { return n.as<std::string>(); }

  // POSIX extended regexes read the CRDs' patterns as written (and, unlike
  // std::regex, do not trip GCC 12's -Wmaybe-uninitialized).
  static bool Matches(const std::string& pattern, const std::string& text) {
    regex_t re;
    if (regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
      return false;
    }
    const bool match = regexec(&re, text.c_str(), 0, nullptr, 0) == 0;
    regfree(&re);
    return match;
  }

  static void Walk(const YAML::Node& s, const nlohmann::json& v,
                   const std::string& path, std::vector<std::string>& out) {
    const std::string type = s["type"] ? Str(s["type"]) : "";
    auto fail = [&](const std::string& why) {
      out.push_back(path + ": " + why);
    };
    if (type == "object") {
      if (!v.is_object()) return fail("not an object");
      for (const auto& [key, value] : v.items()) {
        if (!s["properties"] || !s["properties"][key]) {
          fail("undeclared field " + key);
          continue;
        }
        Walk(s["properties"][key], value, path + "." + key, out);
      }
      if (s["required"]) {
        for (const YAML::Node& r : s["required"]) {
          if (!v.contains(Str(r))) fail("missing required " + Str(r));
        }
      }
    } else if (type == "array") {
      if (!v.is_array()) return fail("not an array");
      if (s["maxItems"] && v.size() > s["maxItems"].as<size_t>()) {
        fail("more than maxItems");
      }
      for (size_t i = 0; i < v.size(); ++i) {
        Walk(s["items"], v[i], path + "[" + std::to_string(i) + "]", out);
      }
    } else if (type == "string") {
      if (!v.is_string()) return fail("not a string");
      const std::string text = v.get<std::string>();
      if (s["enum"]) {
        bool found = false;
        for (const YAML::Node& e : s["enum"]) found = found || Str(e) == text;
        if (!found) fail("\"" + text + "\" not in enum");
      }
      if (s["format"] && Str(s["format"]) == "date-time" &&
          !ParseRfc3339Ms(text)) {
        fail("not a date-time: " + text);
      }
      if (s["pattern"] && !Matches(Str(s["pattern"]), text)) {
        fail("\"" + text + "\" does not match " + Str(s["pattern"]));
      }
      if (s["minLength"] && text.size() < s["minLength"].as<size_t>()) {
        fail("shorter than minLength");
      }
    } else if (type == "integer" || type == "number") {
      if (!v.is_number() || (type == "integer" && !v.is_number_integer())) {
        return fail("not an " + type);
      }
      if (s["minimum"] && v.get<double>() < s["minimum"].as<double>()) {
        fail("below minimum");
      }
      if (s["maximum"] && v.get<double>() > s["maximum"].as<double>()) {
        fail("above maximum");
      }
    } else if (type == "boolean") {
      if (!v.is_boolean()) fail("not a boolean");
    } else {
      fail("schema type \"" + type + "\" not handled by this checker");
    }
  }

  YAML::Node schema_;
};

}  // namespace ax::testing
