#include "tools/text/byte_io.h"

#include <cstring>

namespace normrt::text {

void ByteWriter::u32(uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) u8(static_cast<uint8_t>(value >> shift));
}

void ByteWriter::f32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  u32(bits);
}

void ByteWriter::f64(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  u32(static_cast<uint32_t>(bits));
  u32(static_cast<uint32_t>(bits >> 32));
}

void ByteWriter::str(std::string_view value) {
  u32(static_cast<uint32_t>(value.size()));
  bytes_.append(value);
}

void ByteReader::fail(size_t offset, const std::string& message) {
  if (status_.is_ok())
    status_ = Status::error("tokenizer bytes: offset " + std::to_string(offset) + ": " + message);
}

bool ByteReader::need(size_t n, const char* what) {
  if (!ok()) return false;
  if (n <= remaining()) return true;
  fail(offset_, std::string(what) + ": needs " + std::to_string(n) + " bytes, " +
                    std::to_string(remaining()) + " left");
  return false;
}

uint8_t ByteReader::u8(const char* what) {
  if (!need(1, what)) return 0;
  return static_cast<uint8_t>(bytes_[offset_++]);
}

uint32_t ByteReader::u32(const char* what) {
  if (!need(4, what)) return 0;
  uint32_t value = 0;
  for (int k = 0; k < 4; ++k)
    value |= uint32_t{static_cast<uint8_t>(bytes_[offset_ + k])} << (8 * k);
  offset_ += 4;
  return value;
}

float ByteReader::f32(const char* what) {
  const uint32_t bits = u32(what);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

double ByteReader::f64(const char* what) {
  const uint64_t low = u32(what);
  const uint64_t bits = low | uint64_t{u32(what)} << 32;
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::string ByteReader::str(const char* what) {
  const size_t start = offset_;
  const uint32_t n = u32(what);
  if (!ok()) return {};
  if (n > remaining()) {
    fail(start, std::string(what) + ": length " + std::to_string(n) + " but only " +
                    std::to_string(remaining()) + " bytes left");
    return {};
  }
  std::string value(bytes_.substr(offset_, n));
  offset_ += n;
  return value;
}

uint32_t ByteReader::count(const char* what, size_t min_item_bytes) {
  const size_t start = offset_;
  const uint32_t n = u32(what);
  if (!ok()) return 0;
  if (min_item_bytes > 0 && n > remaining() / min_item_bytes) {
    fail(start, std::string(what) + ": count " + std::to_string(n) + " cannot fit in the " +
                    std::to_string(remaining()) + " bytes left");
    return 0;
  }
  return n;
}

}  // namespace normrt::text
