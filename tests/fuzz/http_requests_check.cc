// CheckHttpRequests: ExplainQuery and DecideRedirect on a small world, with
// the Host header, request target and query parameters taken from the input
// (one per line: host, target, then name=value pairs).
#include <set>
#include <string>
#include <vector>

#include "ax/json_text.h"
#include "ax/rng.h"
#include "fuzz_targets.h"
#include "fuzz_world.h"
#include "server/explain_handler.h"
#include "server/redirector.h"

namespace ax::fuzz {

std::string CheckHttpRequests(Input input) {
  std::vector<std::string> lines;
  std::string_view text = Text(input);
  while (!text.empty() && lines.size() < 16) {
    const size_t end = text.find('\n');
    lines.emplace_back(text.substr(0, end));
    text = end == std::string_view::npos ? "" : text.substr(end + 1);
  }
  lines.resize(std::max<size_t>(lines.size(), 2));
  const dns::ServingState& state = FuzzState();
  const int64_t now_ms = 1'700'000'000'000 + static_cast<int64_t>(input.size());

  dns::QueryParams params;
  for (size_t i = 2; i < lines.size(); ++i) {
    const size_t eq = lines[i].find('=');
    params.emplace(lines[i].substr(0, eq),
                   eq == std::string::npos ? "" : lines[i].substr(eq + 1));
  }
  const dns::JsonReply explained =
      dns::ExplainQuery(params, &state, nullptr, now_ms);
  if (!std::set{200, 400, 404, 503}.contains(explained.status)) {
    return "explain answered " + std::to_string(explained.status);
  }
  if (!explained.body.is_object()) return "explain's body is not an object";
  (void)JsonText(explained.body);

  Rng rng(input.size());
  const dns::RedirectReply redirect =
      dns::DecideRedirect({.host = lines[0],
                           .target = lines[1],
                           .client = *ParseIp("198.51.100.7")},
                          &state, nullptr, now_ms, rng);
  if (!std::set{302, 400, 404, 503}.contains(redirect.status)) {
    return "redirect answered " + std::to_string(redirect.status);
  }
  if (redirect.status == 302 && !redirect.location.starts_with("http")) {
    return "a redirect to \"" + redirect.location + "\"";
  }
  if (redirect.status != 302 && redirect.reason.empty()) {
    return "a refusal without a reason";
  }
  return "";
}

}  // namespace ax::fuzz
