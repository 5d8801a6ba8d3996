// JsonWriter: compact JSON text appended to a string, a value at a time,
// without building a document first; for lines written often (the decision
// log). Its text is what nlohmann's dump(-1) with the replace error handler
// writes for the same values: strings escaped alike (invalid UTF-8 becomes
// U+FFFD), doubles in its notation (1.0, 0.001, 1e+20; NaN and infinities as
// null) with the shortest digits that read back (nlohmann's Grisu2 picks
// another last digit for ~0.3 % of values: the same double either way).
// Whether the calls make valid JSON (a key before each object member,
// containers closed) is the caller's part.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ax {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // An object member's name; its value comes next.
  void Key(std::string_view key);

  void String(std::string_view text);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Double(double value);
  void Bool(bool value);
  void Null();

 private:
  // The comma before an item that is not its container's first, none after a
  // key.
  void Separate();

  std::string& out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace ax
