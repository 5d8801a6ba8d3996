// The YAML walker (yaml_documents.h). The YAML -> JSON conversion follows the
// YAML 1.2 core schema, so quoted "80" stays a string while plain 80 becomes
// a number, exactly the distinction the typed manifest fields check.
#include "yaml_documents.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>

namespace ax::yaml_documents {
namespace {

using nlohmann::json;

// "path:12" for a node with a position, "path" otherwise. yaml-cpp counts lines
// from 0.
std::string Where(std::string_view file, const YAML::Mark& mark) {
  std::string out(file);
  if (mark.line >= 0) out += ":" + std::to_string(mark.line + 1);
  return out;
}

bool IsOneOf(std::string_view s,
             std::initializer_list<std::string_view> options) {
  return std::find(options.begin(), options.end(), s) != options.end();
}

// A plain (unquoted, untagged) scalar resolved by the YAML 1.2 core schema.
json ResolvePlainScalar(const std::string& s) {
  if (IsOneOf(s, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (IsOneOf(s, {"true", "True", "TRUE"})) return true;
  if (IsOneOf(s, {"false", "False", "FALSE"})) return false;
  std::string_view digits = s;
  const bool negative = digits.starts_with('-');
  if (negative || digits.starts_with('+')) digits.remove_prefix(1);
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0o")) {
    base = digits[1] == 'x' ? 16 : 8;
    digits.remove_prefix(2);
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(),
                                   magnitude, base);
  if (!digits.empty() && end == digits.data() + digits.size() &&
      ec == std::errc()) {
    if (!negative) return magnitude;
    if (magnitude <= uint64_t{1} << 63)
      return static_cast<int64_t>(0 - magnitude);
  }
  if (IsOneOf(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}))
    return HUGE_VAL;
  if (IsOneOf(s, {"-.inf", "-.Inf", "-.INF"})) return -HUGE_VAL;
  if (IsOneOf(s, {".nan", ".NaN", ".NAN"})) return NAN;
  // Floats: digits with a '.' and/or an exponent, nothing else ("1.0", "2e3",
  // ".5").
  const bool float_chars =
      s.find_first_not_of("0123456789+-.eE") == std::string::npos &&
      s.find_first_of("0123456789") != std::string::npos;
  if (float_chars) {
    char* stop = nullptr;
    errno = 0;
    double value = std::strtod(s.c_str(), &stop);
    if (stop == s.c_str() + s.size() && errno == 0) return value;
  }
  return s;
}

// What one document may expand to. yaml-cpp shares an aliased node instead of
// copying it, but converting copies: without a bound, a few lines of nested
// aliases ("billion laughs") expand to billions of values. Manifests nest a
// handful deep and hold thousands of values.
constexpr size_t kMaxValues = size_t{1} << 21;
constexpr size_t kMaxDepth = 64;

// YAML -> JSON, reporting duplicate map keys (yaml-cpp keeps both) as errors at
// their line, and refusing documents beyond kMaxValues or kMaxDepth.
class YamlToJson {
 public:
  YamlToJson(std::string_view file, std::vector<ManifestError>& errors)
      : file_(file), errors_(errors) {}

  // Null, with one error at the document, when it is over a bound.
  json ConvertDocument(const YAML::Node& root, const std::string& where) {
    values_ = 0;
    over_ = false;
    json out = Convert(root, "", 0);
    if (!over_) return out;
    errors_.push_back({where, "", "",
                       "expands to more than " + std::to_string(kMaxValues) +
                           " values or nests deeper than " +
                           std::to_string(kMaxDepth) +
                           " (aliases of aliases?): refused"});
    return nullptr;
  }

 private:
  json Convert(const YAML::Node& node, const std::string& path, size_t depth) {
    if (over_ || ++values_ > kMaxValues || depth > kMaxDepth) {
      over_ = true;
      return nullptr;
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        // "!" marks quoted and block scalars, "tag:yaml.org,2002:str" an
        // explicit !!str.
        if (node.Tag() == "?") return ResolvePlainScalar(node.Scalar());
        return node.Scalar();
      case YAML::NodeType::Sequence: {
        json out = json::array();
        for (size_t i = 0; i < node.size(); ++i) {
          out.push_back(Convert(node[i], path + "[" + std::to_string(i) + "]",
                                depth + 1));
        }
        return out;
      }
      case YAML::NodeType::Map: {
        json out = json::object();
        for (const auto& entry : node) {
          const std::string key = entry.first.Scalar();
          const std::string key_path = path.empty() ? key : path + "." + key;
          if (out.contains(key)) {
            errors_.push_back({Where(file_, entry.first.Mark()), "", key_path,
                               "duplicate key"});
            continue;
          }
          out[key] = Convert(entry.second, key_path, depth + 1);
        }
        return out;
      }
      default:
        return nullptr;
    }
  }

  std::string file_;
  std::vector<ManifestError>& errors_;
  size_t values_ = 0;
  bool over_ = false;
};

// yaml-cpp 0.7's LoadAll never returns on a ',' outside [] or {} at a
// document's top level (",x", "[a],"): the parser hands back an empty
// document without consuming the token, forever (found by the manifest fuzz
// target). This pass parses the events only, and says where a document made
// no progress, so that LoadAll runs only on text it finishes.
class ProgressCheck : public YAML::EventHandler {
 public:
  // "" when every document moves the parser on, else the error.
  static std::string Check(std::string_view yaml) {
    std::istringstream in{std::string(yaml)};
    YAML::Parser parser(in);
    ProgressCheck check;
    while (parser.HandleNextDocument(check)) {
      if (check.stuck_) {
        return "YAML syntax error: no progress at line " +
               std::to_string(check.start_.line + 1) + ", column " +
               std::to_string(check.start_.column + 1) +
               " (a ',' outside [] or {}?)";
      }
    }
    return "";
  }

  void OnDocumentStart(const YAML::Mark& mark) override {
    // The same place twice, with nothing but a null in between: stuck.
    stuck_ = seen_ && only_null_ && mark.pos == start_.pos;
    seen_ = true;
    only_null_ = true;
    start_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { Moved(); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Moved();
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Moved();
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Moved();
  }
  void OnMapEnd() override {}

 private:
  void Moved() { only_null_ = false; }

  YAML::Mark start_;
  bool seen_ = false;
  bool only_null_ = true;
  bool stuck_ = false;
};

// `kind: List` with `items`, as `kubectl get -o yaml` prints several objects.
bool IsList(const json& object) {
  return object.is_object() && object.value("kind", json()) == "List" &&
         object.contains("items");
}

}  // namespace

bool ReadText(std::string_view yaml, std::string_view file,
              std::vector<ManifestError>& errors,
              const OnDocument& on_document) {
  std::vector<YAML::Node> documents;
  try {
    if (std::string stuck = ProgressCheck::Check(yaml); !stuck.empty()) {
      errors.push_back({std::string(file), "", "", std::move(stuck)});
      return false;
    }
    documents = YAML::LoadAll(std::string(yaml));
  } catch (const YAML::Exception& e) {
    errors.push_back(
        {Where(file, e.mark), "", "", "YAML syntax error: " + e.msg});
    return false;
  }
  YamlToJson converter(file, errors);
  for (size_t doc = 0; doc < documents.size(); ++doc) {
    const YAML::Node& root = documents[doc];
    if (root.IsNull())
      continue;  // `---` with nothing (or only comments) after it
    const std::string doc_tag = "#" + std::to_string(doc + 1);
    size_t own_errors = errors.size();
    json object =
        converter.ConvertDocument(root, Where(file, root.Mark()) + doc_tag);
    if (object.is_null()) continue;  // over a bound: reported
    if (!IsList(object)) {
      on_document(std::move(object), Where(file, root.Mark()) + doc_tag, errors,
                  own_errors);
      continue;
    }
    json& items = object.at("items");
    if (!items.is_array()) {
      errors.push_back({Where(file, root.Mark()) + doc_tag, "List", "items",
                        "must be a list of objects"});
      continue;
    }
    // The List's duplicate keys cannot be told apart by item: the first
    // item owns them.
    const YAML::Node item_nodes = root["items"];
    for (size_t i = 0; i < items.size(); ++i) {
      on_document(std::move(items[i]),
                  Where(file, item_nodes[i].Mark()) + doc_tag, errors,
                  own_errors);
      own_errors = errors.size();
    }
  }
  return true;
}

bool ReadFile(const std::filesystem::path& path,
              std::vector<ManifestError>& errors,
              const OnDocument& on_document) {
  const std::string name = path.generic_string();
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) {
    errors.push_back({name, "", "", "cannot read file"});
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    errors.push_back({name, "", "", "cannot read file"});
    return false;
  }
  return ReadText(text.str(), name, errors, on_document);
}

std::vector<std::filesystem::path> ManifestFiles(
    const std::filesystem::path& dir, std::vector<ManifestError>& errors) {
  const std::string name = dir.generic_string();
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::filesystem::path& p = it->path();
    const bool yaml_name = p.extension() == ".yaml" || p.extension() == ".yml";
    std::error_code
        type_ec;  // an unreadable entry is reported when it is opened
    if (yaml_name && !it->is_directory(type_ec)) files.push_back(p);
  }
  if (ec) {
    errors.push_back({name, "", "", "cannot read directory: " + ec.message()});
    return {};
  }
  if (files.empty()) {
    errors.push_back({name, "", "", "no *.yaml or *.yml files in directory"});
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace ax::yaml_documents
