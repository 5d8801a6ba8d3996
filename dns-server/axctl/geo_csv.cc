// ParseGeoCsv: an RFC 4180 record reader, the header's columns, and one check
// per column.
#include "axctl/geo_csv.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

namespace ax {
namespace {

enum Column : uint8_t {
  kNetwork,
  kStart,
  kEnd,
  kCountry,
  kSubdivision,
  kCity,
  kAsn,
  kIsp,
  kColumns
};
constexpr std::array<std::string_view, kColumns> kColumnNames = {
    "network", "start", "end", "country", "subdivision", "city", "asn", "isp"};

std::string_view Trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::string Quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// Well-formed UTF-8: no stray continuation bytes, overlong forms, surrogates
// or code points past U+10FFFF (MMDB readers decode strictly).
bool IsUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<uint8_t>(text[i]);
    size_t more = 0;
    uint32_t code = lead;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      more = 1;
      code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      more = 2;
      code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      more = 3;
      code = lead & 0x07;
    } else {
      return false;
    }
    if (text.size() - i <= more) return false;
    for (size_t k = 1; k <= more; ++k) {
      const auto next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = code << 6 | (next & 0x3F);
    }
    constexpr uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[more] || code > 0x10FFFF ||
        (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += 1 + more;
  }
  return true;
}

// One record of the file: its fields and the line it starts on; `error`
// when its quoting is broken.
struct Record {
  int line = 0;
  std::vector<std::string> fields;
  std::string error;
};

// RFC 4180 records: fields separated by commas, records by LF or CRLF; a
// field in double quotes may hold commas, line breaks and doubled quotes.
// Unquoted fields are trimmed of spaces and tabs; blank lines are skipped.
class RecordReader {
 public:
  explicit RecordReader(std::string_view text) : text_(text) {
    // The byte order mark spreadsheets write before UTF-8.
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);
  }

  // False at the end of the text.
  bool Next(Record& record) {
    SkipBlankLines();
    if (pos_ >= text_.size()) return false;
    record = Record{.line = line_};
    while (true) {
      std::string field;
      if (!ReadField(field, record.error)) {
        SkipPast('\n');
        return true;
      }
      record.fields.push_back(std::move(field));
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      SkipPast('\n');
      return true;
    }
  }

 private:
  void SkipBlankLines() {
    while (pos_ < text_.size()) {
      const size_t end = text_.find('\n', pos_);
      if (!Trim(text_.substr(pos_, end - pos_)).empty()) return;
      SkipPast('\n');
    }
  }

  // To just past the next `c` (or the end).
  void SkipPast(char c) {
    const size_t at = text_.find(c, pos_);
    pos_ = at == std::string_view::npos ? text_.size() : at + 1;
    if (at != std::string_view::npos && c == '\n') ++line_;
  }

  // Leaves pos_ at the comma, line feed or end after the field.
  bool ReadField(std::string& field, std::string& error) {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '"') {
      const int opened = line_;
      for (++pos_;; ++pos_) {
        if (pos_ >= text_.size()) {
          error = "the quoted field opened on line " + std::to_string(opened) +
                  " is never closed";
          return false;
        }
        const char c = text_[pos_];
        if (c == '"') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
            field += '"';
            ++pos_;
            continue;
          }
          ++pos_;
          break;
        }
        if (c == '\n') ++line_;
        field += c;
      }
      const size_t end =
          std::min(text_.find_first_of(",\n", pos_), text_.size());
      if (!Trim(text_.substr(pos_, end - pos_)).empty()) {
        error =
            "text after a closing quote (a quote inside a quoted field "
            "is written twice)";
        return false;
      }
      pos_ = end;
      return true;
    }
    const size_t end = std::min(text_.find_first_of(",\n", pos_), text_.size());
    const std::string_view raw = Trim(text_.substr(pos_, end - pos_));
    pos_ = end;
    if (raw.find('"') != std::string_view::npos) {
      error =
          "a quote inside an unquoted field (quote the whole field and "
          "write the quote twice)";
      return false;
    }
    field = raw;
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

// The header: where each column is (-1: absent) and how many there are.
struct Header {
  std::array<int, kColumns> index;
  size_t count = 0;
};

std::optional<Header> ParseHeader(const Record& record,
                                  std::vector<GeoCsvError>& errors) {
  const size_t before = errors.size();
  auto fail = [&](std::string message) {
    errors.push_back({record.line, "header: " + std::move(message)});
  };
  if (!record.error.empty()) {
    fail(record.error);
    return std::nullopt;
  }
  Header header;
  header.index.fill(-1);
  header.count = record.fields.size();
  for (size_t i = 0; i < record.fields.size(); ++i) {
    std::string name = record.fields[i];
    for (char& c : name) c = c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
    const auto known =
        std::find(kColumnNames.begin(), kColumnNames.end(), name);
    if (known == kColumnNames.end()) {
      fail("unknown column " + Quoted(record.fields[i]) +
           " (known: network, start, end, country, subdivision, city, asn, "
           "isp)");
      continue;
    }
    int& index = header.index[known - kColumnNames.begin()];
    if (index >= 0) {
      fail("column " + Quoted(name) + " named twice");
      continue;
    }
    index = static_cast<int>(i);
  }
  const bool network = header.index[kNetwork] >= 0;
  const bool start = header.index[kStart] >= 0;
  const bool end = header.index[kEnd] >= 0;
  if (network && (start || end)) {
    fail("name either 'network' or 'start' and 'end', not both");
  } else if (!network && !start && !end) {
    fail(
        "no network column: name 'network' (a CIDR) or 'start' and 'end' "
        "(an address range)");
  } else if (start != end) {
    fail(start ? "'start' without 'end'" : "'end' without 'start'");
  }
  if (std::all_of(header.index.begin() + kCountry, header.index.end(),
                  [](int index) { return index < 0; })) {
    fail(
        "no data column: name at least one of country, subdivision, city, "
        "asn, isp");
  }
  if (errors.size() != before) return std::nullopt;
  return header;
}

// Appends the fewest blocks under `block` that cover exactly its part of
// [first, last], in address order.
void Cover(const IpPrefix& block, const IpAddress& first, const IpAddress& last,
           std::vector<IpPrefix>& out) {
  const IpAddress block_last = LastAddress(block);
  if (block_last < first || last < block.address) return;
  if (first <= block.address && block_last <= last) {
    out.push_back(block);
    return;
  }
  IpPrefix high{block.address, block.length + 1};
  high.address.bytes[block.length / 8] |=
      static_cast<uint8_t>(0x80 >> (block.length % 8));
  Cover({block.address, block.length + 1}, first, last, out);
  Cover(high, first, last, out);
}

// Sets the row's networks from `network`, or `start` and `end` when
// `ranged`, or adds the problems.
void ParseNetworks(std::string_view network, std::string_view start,
                   std::string_view end, bool ranged, GeoCsvRow& row,
                   std::vector<GeoCsvError>& errors) {
  auto fail = [&](std::string message) {
    errors.push_back({row.line, std::move(message)});
  };
  if (!ranged) {
    std::string why;
    const std::optional<IpPrefix> prefix = ParsePrefix(network, &why);
    if (network.empty()) {
      fail("network: missing");
    } else if (!prefix) {
      fail("network: " + Quoted(network) + ": " + why);
    } else {
      row.networks = {*prefix};
    }
    return;
  }
  std::array<std::optional<IpAddress>, 2> ends;
  for (int i = 0; i < 2; ++i) {
    const std::string_view text = i == 0 ? start : end;
    const std::string name = i == 0 ? "start" : "end";
    ends[i] = ParseIp(text);
    if (text.empty()) {
      fail(name + ": missing");
    } else if (!ends[i]) {
      fail(name + ": " + Quoted(text) + " is not an IP address");
    }
  }
  if (!ends[0] || !ends[1]) return;
  const IpAddress& first = *ends[0];
  const IpAddress& last = *ends[1];
  if (first.family != last.family) {
    fail("start " + FormatIp(first) + " and end " + FormatIp(last) +
         " are of different address families");
  } else if (last < first) {
    fail("start " + FormatIp(first) + " is after end " + FormatIp(last));
  } else {
    Cover({IpAddress{.family = first.family}, 0}, first, last, row.networks);
  }
}

// `text` as an AS number ("4134", "AS4134"); an error message when it is
// not one.
std::optional<uint32_t> ParseAsn(std::string_view text, std::string& error) {
  std::string_view digits = text;
  if (digits.size() > 2 && (digits[0] == 'A' || digits[0] == 'a') &&
      (digits[1] == 'S' || digits[1] == 's')) {
    digits.remove_prefix(2);
  }
  uint64_t number = 0;
  const char* stop = digits.data() + digits.size();
  const auto [end, ec] = std::from_chars(digits.data(), stop, number);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc() && end == stop &&
       (number == 0 || number > UINT32_MAX))) {
    error = Quoted(text) + " is out of range (1 to 4294967295)";
  } else if (ec != std::errc() || end != stop) {
    error = Quoted(text) + " is not a number";
  } else {
    return static_cast<uint32_t>(number);
  }
  return std::nullopt;
}

// One data record checked field by field: the row, or nullopt after adding
// its problems.
std::optional<GeoCsvRow> ParseRow(const Record& record, const Header& header,
                                  const dns::SubdivisionTable& subdivisions,
                                  std::vector<GeoCsvError>& errors) {
  GeoCsvRow row{.line = record.line};
  if (!record.error.empty()) {
    errors.push_back({row.line, record.error});
    return std::nullopt;
  }
  if (record.fields.size() != header.count) {
    errors.push_back({row.line, "has " + std::to_string(record.fields.size()) +
                                    " fields where the header names " +
                                    std::to_string(header.count) + " columns"});
    return std::nullopt;
  }
  auto field = [&](Column column) -> std::string_view {
    const int index = header.index[column];
    return index < 0 ? std::string_view() : record.fields[index];
  };
  const size_t before = errors.size();
  auto fail = [&](Column column, std::string message) {
    errors.push_back({row.line, std::string(kColumnNames[column]) + ": " +
                                    std::move(message)});
  };
  ParseNetworks(field(kNetwork), field(kStart), field(kEnd),
                header.index[kNetwork] < 0, row, errors);

  const std::string_view country = field(kCountry);
  const bool letters =
      country.size() == 2 &&
      std::all_of(country.begin(), country.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
      });
  if (letters) {
    for (char c : country) row.country += c >= 'a' ? c - 'a' + 'A' : c;
  } else if (!country.empty()) {
    fail(kCountry, Quoted(country) + " is not a two-letter ISO 3166-1 code");
  }

  if (const std::string_view value = field(kSubdivision); !value.empty()) {
    // Stored as GeoIP2 stores it, the part after the dash, so the code
    // must be one the readers' table maps back.
    const std::string_view iso = subdivisions.ToIso(row.country, value);
    if (country.empty()) {
      fail(kSubdivision, Quoted(value) + " needs a country");
    } else if (!row.country.empty()) {  // else the country's error says it
      if (iso.size() < 4 ||
          subdivisions.ToIso(row.country, iso.substr(3)) != iso) {
        fail(kSubdivision, Quoted(value) + " is not a subdivision of " +
                               row.country +
                               " (an ISO 3166-2 code like CN-GD, its part "
                               "after the dash, or its name)");
      } else {
        row.subdivision = iso;
      }
    }
  }

  for (const auto& [column, out] :
       {std::pair{kCity, &row.city}, std::pair{kIsp, &row.isp}}) {
    const std::string_view value = field(column);
    if (IsUtf8(value)) {
      *out = value;
    } else {
      fail(column, "not valid UTF-8");
    }
  }

  if (const std::string_view asn = field(kAsn); !asn.empty()) {
    std::string error;
    const std::optional<uint32_t> number = ParseAsn(asn, error);
    if (number) {
      row.asn = *number;
    } else {
      fail(kAsn, error);
    }
  }

  if (errors.size() != before) return std::nullopt;
  if (row.country.empty() && row.city.empty() && row.asn == 0 &&
      row.isp.empty()) {
    errors.push_back(
        {row.line, "nothing to store: every data column is empty"});
    return std::nullopt;
  }
  return row;
}

}  // namespace

std::vector<GeoCsvRow> ParseGeoCsv(std::string_view text,
                                   const dns::SubdivisionTable& subdivisions,
                                   std::vector<GeoCsvError>& errors) {
  RecordReader reader(text);
  Record record;
  if (!reader.Next(record)) {
    errors.push_back(
        {1, "empty file: expected a header line naming the columns"});
    return {};
  }
  const std::optional<Header> header = ParseHeader(record, errors);
  if (!header) return {};
  std::vector<GeoCsvRow> rows;
  while (reader.Next(record)) {
    std::optional<GeoCsvRow> row =
        ParseRow(record, *header, subdivisions, errors);
    if (row) rows.push_back(std::move(*row));
  }
  return rows;
}

}  // namespace ax
