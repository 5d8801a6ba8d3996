// Renders an explanation document (core explain.h) as text an on-call engineer
// reads top to bottom. Formatting only: no decisions here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ax {

std::string ExplanationToText(const nlohmann::json& explanation);

}  // namespace ax
