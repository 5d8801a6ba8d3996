// geodb build: CSV rows -> records at the geoip2 schema's paths -> the
// writer; the file written beside OUT and renamed over it only when complete.
#include "axctl/geodb_build.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include "axctl/geo_csv.h"
#include "axctl/geodb_command.h"
#include "geo/geo_fields.h"
#include "geo/mmdb_writer.h"
#include "geo/subdivision_table.h"

namespace ax {
namespace {

using dns::MmdbValue;

// Sets `path` (map keys; a number indexes an array) under `value` to
// `leaf`, making the maps and arrays on the way.
void Place(MmdbValue& value, std::span<const std::string> path,
           MmdbValue leaf) {
  if (path.empty()) {
    value = std::move(leaf);
    return;
  }
  const std::string& step = path.front();
  MmdbValue* next = nullptr;
  if (std::all_of(step.begin(), step.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    value.type = MmdbValue::Type::kArray;
    const size_t index = std::stoul(step);
    if (value.array.size() <= index) value.array.resize(index + 1);
    next = &value.array[index];
  } else {
    value.type = MmdbValue::Type::kMap;
    auto it = std::find_if(
        value.map.begin(), value.map.end(),
        [&](const MmdbValue::Entry& entry) { return entry.key == step; });
    if (it == value.map.end()) {
      value.map.push_back({step, MmdbValue()});
      it = value.map.end() - 1;
    }
    next = &it->value;
  }
  Place(*next, path.subspan(1), std::move(leaf));
}

// The row's record where the geoip2 schema reads each field.
MmdbValue RecordOf(const GeoCsvRow& row) {
  static const dns::GeoFieldPaths paths;
  MmdbValue record = MmdbValue::Map({});
  auto text = [&](const std::vector<std::string>& path,
                  const std::string& value) {
    if (!value.empty()) Place(record, path, MmdbValue::String(value));
  };
  text(paths.country, row.country);
  // GeoIP2 keeps the part after the dash ("GD"); SubdivisionTable maps it
  // back within the country.
  text(paths.subdivision,
       row.subdivision.empty() ? "" : row.subdivision.substr(3));
  text(paths.city, row.city);
  if (row.asn != 0) Place(record, paths.asn, MmdbValue::Uint32(row.asn));
  text(paths.isp, row.isp);
  return record;
}

// One problem, sortable into file and line order.
struct Problem {
  size_t file = 0;
  int line = 0;
  std::string message;
};

bool WriteAtomically(const std::string& path, const std::string& bytes,
                     std::string* error) {
  // Beside `path`: rename(2) is atomic within one file system.
  std::string temp = path + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    *error = path + ": cannot create a file beside it: " + strerror(errno);
    return false;
  }
  // mkstemp makes the file private; the server may run as another user.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  bool ok = ::fchmod(fd, 0666 & ~mask) == 0;
  for (size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  ok = ok && ::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) {
    *error = path + ": " + strerror(errno);
    ::unlink(temp.c_str());
  }
  return ok;
}

}  // namespace

std::optional<GeodbBuilt> BuildGeoMmdb(const std::vector<GeoCsvFile>& files,
                                       const GeodbBuildOptions& options,
                                       std::vector<std::string>& errors) {
  dns::MmdbWriter writer(
      {.ip_version = options.ip_version,
       .database_type = "Ax-Geo",
       .description = {{"en", options.description}},
       .languages = {"en"},
       .build_epoch = options.build_epoch != 0
                          ? options.build_epoch
                          : static_cast<uint64_t>(std::time(nullptr))});
  GeodbBuilt built;
  std::vector<Problem> problems;
  // Each row inserted, by its tag: (file, line).
  std::vector<std::pair<size_t, int>> origins;
  const auto subdivisions = dns::SubdivisionTable::Builtin();
  for (size_t f = 0; f < files.size(); ++f) {
    std::vector<GeoCsvError> csv_errors;
    const std::vector<GeoCsvRow> rows =
        ParseGeoCsv(files[f].text, *subdivisions, csv_errors);
    for (GeoCsvError& e : csv_errors) {
      problems.push_back({f, e.line, std::move(e.message)});
    }
    for (const GeoCsvRow& row : rows) {
      const uint64_t tag = origins.size();
      origins.emplace_back(f, row.line);
      const MmdbValue record = RecordOf(row);
      std::set<uint64_t> overlapped;  // each once, whichever CIDR meets it
      for (const IpPrefix& network : row.networks) {
        std::string error;
        std::optional<uint64_t> other;
        if (writer.Insert(network, record, tag, &error, &other)) {
          ++built.networks;
          continue;
        }
        if (!other) {  // the row's other networks would say the same
          problems.push_back({f, row.line, std::move(error)});
          break;
        }
        if (!overlapped.insert(*other).second) continue;
        const auto [other_file, other_line] = origins[*other];
        problems.push_back(
            {f, row.line,
             error + " of " +
                 (other_file == f ? "line " : files[other_file].name + ":") +
                 std::to_string(other_line)});
      }
      ++built.rows;
    }
  }
  if (problems.empty()) {
    std::string error;
    std::optional<std::string> bytes = writer.Build(&error);
    if (bytes) {
      built.bytes = std::move(*bytes);
      return built;
    }
    errors.push_back(error);
    return std::nullopt;
  }
  std::stable_sort(problems.begin(), problems.end(),
                   [](const Problem& a, const Problem& b) {
                     return std::tie(a.file, a.line) < std::tie(b.file, b.line);
                   });
  for (const Problem& p : problems) {
    errors.push_back(files[p.file].name + ":" + std::to_string(p.line) + ": " +
                     p.message);
  }
  return std::nullopt;
}

int GeodbBuildCommand(const Args& args) {
  // -o is --output (ParseArgs): here the file written.
  const std::vector<std::string> inputs(args.positional.begin() + 1,
                                        args.positional.end());
  const std::string output = args.Get("--output");
  const std::string version =
      args.Has("--ip-version") ? args.Get("--ip-version") : "6";
  if (inputs.empty() || output.empty() || (version != "4" && version != "6")) {
    std::cerr << "usage:\n" << kGeodbUsage;
    return 2;
  }
  std::vector<GeoCsvFile> files;
  std::string names;
  for (const std::string& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf())) {
      std::cerr << path << ": cannot read: " << strerror(errno) << "\n";
      return 1;
    }
    files.push_back({path, text.str()});
    names += (names.empty() ? "" : ", ") + path;
  }
  GeodbBuildOptions options{
      .ip_version = version == "4" ? 4 : 6,
      .description = args.Has("--description")
                         ? args.Get("--description")
                         : "Ax geo data built from " + names};
  std::vector<std::string> errors;
  const std::optional<GeodbBuilt> built = BuildGeoMmdb(files, options, errors);
  if (!built) {
    for (size_t i = 0; i < errors.size() && i < kMaxBuildErrors; ++i) {
      std::cerr << errors[i] << "\n";
    }
    if (errors.size() > kMaxBuildErrors) {
      std::cerr << "and " << errors.size() - kMaxBuildErrors
                << " more errors\n";
    }
    std::cerr << output << " not written\n";
    return 1;
  }
  std::string error;
  if (!WriteAtomically(output, built->bytes, &error)) {
    std::cerr << error << "\n";
    return 1;
  }
  std::cout << "wrote " << output << ": " << built->rows << " rows, "
            << built->networks << " networks, " << built->bytes.size()
            << " bytes\n";
  return 0;
}

}  // namespace ax
