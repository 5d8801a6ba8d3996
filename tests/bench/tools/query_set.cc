#include "query_set.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "dns_query.h"

namespace ax::bench {
namespace {

// Lines of a text file without comments and surrounding blanks.
bool ReadLines(const std::string& path, std::vector<std::string>* lines,
               std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const size_t last = line.find_last_not_of(" \t\r");
    lines->push_back(line.substr(first, last - first + 1));
  }
  return true;
}

bool IsPublicV4(uint32_t a) {
  const uint32_t o1 = a >> 24;
  const uint32_t o2 = (a >> 16) & 0xFF;
  return o1 != 0 && o1 != 10 && o1 != 127 && o1 < 224 &&
         !(o1 == 100 && o2 >= 64 && o2 < 128) && !(o1 == 169 && o2 == 254) &&
         !(o1 == 172 && o2 >= 16 && o2 < 32) && !(o1 == 192 && o2 == 168) &&
         !(o1 == 198 && (o2 == 18 || o2 == 19));
}

bool AddQuery(const std::string& name, const std::string& type,
              const std::optional<ClientSubnet>& ecs, bool edns, QuerySet* set,
              std::string* error) {
  const std::optional<uint16_t> qtype = ParseQtype(type);
  if (!qtype) {
    *error = "unknown query type " + type;
    return false;
  }
  std::optional<std::vector<uint8_t>> wire =
      BuildQuery(name, *qtype, edns, ecs);
  if (!wire) {
    *error = "bad query name " + name;
    return false;
  }
  QueryTemplate query;
  query.question_end = QuestionEnd(wire->data(), wire->size());
  query.wire = std::move(*wire);
  set->queries.push_back(std::move(query));
  return true;
}

bool FromFile(const LoadgenOptions& options, QuerySet* set,
              std::string* error) {
  std::vector<std::string> lines;
  if (!ReadLines(options.queries_file, &lines, error)) return false;
  std::set<std::string> subnets;
  for (const std::string& line : lines) {
    std::istringstream fields(line);
    std::string name;
    std::string type;
    std::string subnet;
    fields >> name >> type >> subnet;
    if (type.empty()) {
      *error = options.queries_file + ": expected NAME TYPE [SUBNET]: " + line;
      return false;
    }
    std::optional<ClientSubnet> ecs;
    if (!subnet.empty()) {
      ecs = ParseClientSubnet(subnet);
      if (!ecs) {
        *error = options.queries_file + ": bad subnet " + subnet;
        return false;
      }
      subnets.insert(FormatClientSubnet(*ecs));
    }
    if (!AddQuery(name, type, ecs, options.edns, set, error)) return false;
  }
  set->subnets = subnets.size();
  return true;
}

bool FromMix(const LoadgenOptions& options, QuerySet* set, std::string* error) {
  std::vector<std::string> names = options.qnames;
  if (names.empty()) names.emplace_back("api.example.test");
  std::vector<std::string> subnet_texts = options.ecs;
  if (!options.ecs_file.empty() &&
      !ReadLines(options.ecs_file, &subnet_texts, error)) {
    return false;
  }
  std::vector<ClientSubnet> subnets;
  for (const std::string& text : subnet_texts) {
    const std::optional<ClientSubnet> subnet = ParseClientSubnet(text);
    if (!subnet) {
      *error = "bad client subnet " + text;
      return false;
    }
    subnets.push_back(*subnet);
  }
  std::mt19937_64 random(options.seed);
  for (int i = 0; i < options.ecs_random; ++i) {
    uint32_t a = 0;
    do {
      a = static_cast<uint32_t>(random()) & 0xFFFFFF00u;
    } while (!IsPublicV4(a));
    ClientSubnet subnet;
    subnet.address[0] = static_cast<uint8_t>(a >> 24);
    subnet.address[1] = static_cast<uint8_t>(a >> 16);
    subnet.address[2] = static_cast<uint8_t>(a >> 8);
    subnet.prefix = 24;
    subnets.push_back(subnet);
  }
  const size_t count =
      std::max(names.size(), std::max<size_t>(subnets.size(), 1));
  for (size_t i = 0; i < count; ++i) {
    std::optional<ClientSubnet> ecs;
    if (!subnets.empty()) ecs = subnets[i % subnets.size()];
    if (!AddQuery(names[i % names.size()], options.qtype, ecs, options.edns,
                  set, error)) {
      return false;
    }
  }
  set->subnets = subnets.size();
  return true;
}

}  // namespace

bool BuildQuerySet(const LoadgenOptions& options, QuerySet* set,
                   std::string* error) {
  const bool ok = options.queries_file.empty() ? FromMix(options, set, error)
                                               : FromFile(options, set, error);
  if (!ok) return false;
  if (set->queries.empty()) {
    *error = "no queries";
    return false;
  }
  std::mt19937_64 random(options.seed ^ 0x5DEECE66DULL);
  std::shuffle(set->queries.begin(), set->queries.end(), random);
  return true;
}

}  // namespace ax::bench
