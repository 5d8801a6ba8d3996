// TakeOpenSslErrors (openssl_errors.h).
#include "ax/runtime/openssl_errors.h"

#include <openssl/err.h>

namespace ax::runtime {

std::string TakeOpenSslErrors(std::string_view fallback) {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    if (!text.empty()) text += "; ";
    text += buf;
  }
  return text.empty() ? std::string(fallback) : text;
}

}  // namespace ax::runtime
