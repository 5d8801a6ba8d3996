// The built-in rows of SubdivisionTable, generated into
// subdivision_table_data.cc by scripts/geo/gen_subdivision_table.py. Only
// subdivision_table.cc reads them.
#pragma once

#include <string_view>

namespace ax::dns {

// "CODE,NAME\n" rows; NAME may be empty (the code maps, no name does).
extern const std::string_view kBuiltinSubdivisionRows;

}  // namespace ax::dns
