#include "reader_test_support.h"

#include <doctest/doctest.h>
#include <zip.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/scratch_dir.h"

namespace normrt::test {

Bytes bytes_of(const std::string& text) {
  Bytes bytes(text.size());
  if (!text.empty()) std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

Bytes safetensors_image(const std::string& header_json, const Bytes& data) {
  Bytes image(8);
  uint64_t length = header_json.size();
  for (int i = 0; i < 8; ++i) image[i] = static_cast<std::byte>((length >> (8 * i)) & 0xff);
  const Bytes header = bytes_of(header_json);
  image.insert(image.end(), header.begin(), header.end());
  image.insert(image.end(), data.begin(), data.end());
  return image;
}

Bytes safetensors_file(const std::vector<StTensor>& tensors, const std::string& metadata_json) {
  std::string header = "{";
  if (!metadata_json.empty()) header += "\"__metadata__\":" + metadata_json;
  Bytes data;
  for (const StTensor& tensor : tensors) {
    if (header.size() > 1) header += ",";
    const size_t begin = data.size();
    data.insert(data.end(), tensor.data.begin(), tensor.data.end());
    header += "\"" + tensor.name + "\":{\"dtype\":\"" + tensor.dtype +
              "\",\"shape\":" + tensor.shape + ",\"data_offsets\":[" + std::to_string(begin) + "," +
              std::to_string(data.size()) + "]}";
  }
  header += "}";
  return safetensors_image(header, data);
}

Bytes npy_image(const std::string& dict, const Bytes& data, int major) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  Bytes image = bytes_of(std::string("\x93NUMPY", 6));
  image.push_back(static_cast<std::byte>(major));
  image.push_back(std::byte{0});
  const size_t length_bytes = prefix - 8;
  for (size_t i = 0; i < length_bytes; ++i) {
    image.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xff));
  }
  const Bytes text = bytes_of(header);
  image.insert(image.end(), text.begin(), text.end());
  image.insert(image.end(), data.begin(), data.end());
  return image;
}

std::string npy_dict(const std::string& descr, const std::string& shape, bool fortran) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

std::string write_temp_file(const Bytes& bytes, const std::string& suffix) {
  static std::atomic<int> counter{0};
  static const std::string dir =
      test::scratch_dir(std::filesystem::temp_directory_path().string(), "readers");
  const std::string path = dir + "/" + std::to_string(counter++) + suffix;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
  return path;
}

Bytes zip_image(const std::vector<ZipMember>& members) {
  const std::string path = write_temp_file({}, ".zip");
  std::remove(path.c_str());
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  REQUIRE(archive != nullptr);
  for (const ZipMember& member : members) {
    zip_source_t* source = zip_source_buffer(archive, member.data.data(), member.data.size(), 0);
    REQUIRE(source != nullptr);
    const zip_int64_t index = zip_file_add(archive, member.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    REQUIRE(index >= 0);
    REQUIRE(zip_set_file_compression(archive, static_cast<zip_uint64_t>(index),
                                     member.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) == 0);
  }
  REQUIRE(zip_close(archive) == 0);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return bytes_of(text);
}

void check_error(const Status& status, const std::vector<std::string>& parts) {
  REQUIRE_MESSAGE(!status.is_ok(), "expected an error containing '" << parts.front() << "'");
  for (const std::string& part : parts) {
    CHECK_MESSAGE(status.message().find(part) != std::string::npos,
                  "message: " << status.message() << "\n  lacks: " << part);
  }
}

}  // namespace normrt::test
