// Plain-text tables for axctl's text output, as kubectl prints them: columns
// padded to their widest cell, two spaces apart. Layout only.
#pragma once

#include <string>
#include <vector>

namespace ax {

// `rows` (the first is usually the header), one line each.
std::string TextTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace ax
