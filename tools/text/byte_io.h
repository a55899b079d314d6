#pragma once
// Little-endian writing and bounds-checked reading of the tokenizer's
// serialized form (tokenizer_serialize.h). Every read checks that the bytes
// are there; a failure is a Status naming the byte offset and what was being
// read, and a reader that failed stays failed (later reads return zeros), so
// a deserializer can check once per section instead of after every field.
#include <cstdint>
#include <string>
#include <string_view>

#include "normrt/status.h"

namespace normrt::text {

class ByteWriter {
 public:
  void u8(uint8_t value) { bytes_.push_back(static_cast<char>(value)); }
  void u32(uint32_t value);
  void i32(int32_t value) { u32(static_cast<uint32_t>(value)); }
  void f32(float value);
  void f64(double value);
  /// u32 length, then the bytes.
  void str(std::string_view value);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  uint8_t u8(const char* what);
  uint32_t u32(const char* what);
  int32_t i32(const char* what) { return static_cast<int32_t>(u32(what)); }
  float f32(const char* what);
  double f64(const char* what);
  /// A u32 length then that many bytes; the length must fit in what is left.
  std::string str(const char* what);
  /// A u32 count of items that each take at least `min_item_bytes`: more
  /// items than the remaining bytes can hold is an error (so a corrupt count
  /// never sizes an allocation).
  uint32_t count(const char* what, size_t min_item_bytes);
  /// Records an error about the value just read (it started at `offset`).
  void fail(size_t offset, const std::string& message);

  bool ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }

 private:
  bool need(size_t n, const char* what);
  std::string_view bytes_;
  size_t offset_ = 0;
  Status status_ = Status::ok();
};

}  // namespace normrt::text
