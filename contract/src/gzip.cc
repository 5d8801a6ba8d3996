// gzip through zlib (gzip.h). windowBits 15 + 16 selects the gzip wrapper in
// both directions; output grows in chunks so the bound is checked as it goes.
#include "ax/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace ax {
namespace {

constexpr int kGzipWindowBits = 15 + 16;
constexpr size_t kChunk = size_t{64} * 1024;

// zlib counts in uInt; feed it at most this much per call.
uInt Clamp(size_t n) {
  return static_cast<uInt>(std::min<size_t>(n, UINT_MAX));
}

}  // namespace

std::string GzipCompress(std::string_view data) {
  z_stream zs{};
  // Only fails on bad arguments or out of memory; neither is input-dependent.
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
               Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()), '\0');
  size_t produced = 0;
  zs.next_in =
      reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));  // NOLINT
  size_t in_left = data.size();
  for (;;) {
    if (produced == out.size()) out.resize(out.size() * 2 + kChunk);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = Clamp(out.size() - produced);
    zs.avail_in = Clamp(in_left);
    const uInt in_before = zs.avail_in, out_before = zs.avail_out;
    const int rc = deflate(&zs, zs.avail_in == in_left ? Z_FINISH : Z_NO_FLUSH);
    in_left -= in_before - zs.avail_in;
    produced += out_before - zs.avail_out;
    if (rc == Z_STREAM_END) break;
  }
  deflateEnd(&zs);
  out.resize(produced);
  return out;
}

std::optional<std::string> GzipDecompress(std::string_view gz,
                                          size_t max_output,
                                          std::string* error) {
  z_stream zs{};
  if (inflateInit2(&zs, kGzipWindowBits) != Z_OK) {
    *error = "cannot start zlib";
    return std::nullopt;
  }
  zs.next_in =
      reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));  // NOLINT
  size_t in_left = gz.size();
  std::string out;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() >= max_output) {
      *error = "does not fit in " + std::to_string(max_output) +
               " bytes once inflated";
      break;
    }
    const size_t old_size = out.size();
    out.resize(std::min(old_size + kChunk, max_output));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + old_size);
    zs.avail_out = static_cast<uInt>(out.size() - old_size);
    zs.avail_in = Clamp(in_left);
    const uInt in_before = zs.avail_in;
    rc = inflate(&zs, Z_NO_FLUSH);
    in_left -= in_before - zs.avail_in;
    out.resize(out.size() - zs.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && in_left == 0) {
      *error = "truncated: the gzip stream ends early";
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      *error = std::string("corrupt gzip data: ") +
               (zs.msg ? zs.msg : "zlib error " + std::to_string(rc));
      break;
    }
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  if (in_left != 0) {
    *error = std::to_string(in_left) + " trailing bytes after the gzip stream";
    return std::nullopt;
  }
  return out;
}

}  // namespace ax
