#include "safetensors_test_reader.h"

#include <cstdint>
#include <cstring>
#include <fstream>

namespace normrt::test {
namespace {

// Recursive-descent reader of the header's JSON subset: objects, arrays,
// strings (escapes other than \" \\ \/ rejected), non-negative integers.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : text_(text) {}

  bool parse(std::vector<SourceTensor>& tensors, std::vector<std::pair<size_t, size_t>>& spans) {
    if (!consume('{')) return false;
    if (consume('}')) return at_end();
    do {
      std::string name;
      if (!string(name) || !consume(':')) return false;
      if (name == "__metadata__") {
        if (!skip_string_map()) return false;
        continue;
      }
      SourceTensor tensor;
      tensor.name = name;
      size_t begin = 0, end = 0;
      if (!tensor_entry(tensor, begin, end)) return false;
      tensors.push_back(std::move(tensor));
      spans.emplace_back(begin, end);
    } while (consume(','));
    return consume('}') && at_end();
  }
  size_t offset() const { return pos_; }

 private:
  void space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool consume(char c) {
    space();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool at_end() {
    space();
    return pos_ == text_.size();
  }
  bool string(std::string& out) {
    if (!consume('"')) return false;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') {
        if (++pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\\' && text_[pos_] != '/'))
          return false;
      }
      out += text_[pos_++];
    }
    return consume('"');
  }
  bool integer(size_t& out) {
    space();
    size_t start = pos_;
    out = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (out > (SIZE_MAX - 9) / 10) return false;
      out = out * 10 + static_cast<size_t>(text_[pos_++] - '0');
    }
    return pos_ > start;
  }
  bool integer_list(std::vector<size_t>& out) {
    if (!consume('[')) return false;
    if (consume(']')) return true;
    do {
      size_t value;
      if (!integer(value)) return false;
      out.push_back(value);
    } while (consume(','));
    return consume(']');
  }
  bool skip_string_map() {
    if (!consume('{')) return false;
    if (consume('}')) return true;
    do {
      std::string key, value;
      if (!string(key) || !consume(':') || !string(value)) return false;
    } while (consume(','));
    return consume('}');
  }
  bool tensor_entry(SourceTensor& tensor, size_t& begin, size_t& end) {
    if (!consume('{')) return false;
    bool has_dtype = false, has_shape = false, has_offsets = false;
    do {
      std::string key;
      if (!string(key) || !consume(':')) return false;
      if (key == "dtype") {
        if (!string(tensor.dtype)) return false;
        has_dtype = true;
      } else if (key == "shape") {
        std::vector<size_t> dims;
        if (!integer_list(dims) || dims.size() > 8) return false;
        for (size_t d : dims) {
          if (d > (size_t{1} << 40)) return false;
          tensor.shape.push_back(static_cast<int64_t>(d));
        }
        has_shape = true;
      } else if (key == "data_offsets") {
        std::vector<size_t> offsets;
        if (!integer_list(offsets) || offsets.size() != 2) return false;
        begin = offsets[0];
        end = offsets[1];
        has_offsets = true;
      } else {
        return false;
      }
    } while (consume(','));
    return consume('}') && has_dtype && has_shape && has_offsets;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

Expected<std::unique_ptr<SafetensorsTestFile>> SafetensorsTestFile::open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open");
  auto file = std::unique_ptr<SafetensorsTestFile>(new SafetensorsTestFile());
  file->path_ = path;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0);
  if (size < 8) return Status::error(path + ": " + std::to_string(size) + " bytes, too short");
  file->bytes_.resize(static_cast<size_t>(size));
  in.read(reinterpret_cast<char*>(file->bytes_.data()), size);
  if (!in) return Status::error(path + ": read failed");

  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | uint8_t(file->bytes_[i]);
  if (header_size > file->bytes_.size() - 8)
    return Status::error(path + ": header of " + std::to_string(header_size) +
                         " bytes at offset 8 overruns the file of " +
                         std::to_string(file->bytes_.size()) + " bytes");
  const std::string header(reinterpret_cast<const char*>(file->bytes_.data() + 8), header_size);
  std::vector<std::pair<size_t, size_t>> spans;
  HeaderParser parser(header);
  if (!parser.parse(file->tensors_, spans))
    return Status::error(path + ": malformed header near byte " + std::to_string(8 + parser.offset()));
  const size_t data_start = 8 + header_size;
  const size_t data_size = file->bytes_.size() - data_start;
  for (size_t i = 0; i < spans.size(); ++i) {
    auto [begin, end] = spans[i];
    if (begin > end || end > data_size)
      return Status::error(path + ": tensor '" + file->tensors_[i].name + "' data [" +
                           std::to_string(begin) + ", " + std::to_string(end) +
                           ") is outside the data of " + std::to_string(data_size) + " bytes");
    file->tensors_[i].data = file->bytes_.data() + data_start + begin;
    file->tensors_[i].size = end - begin;
  }
  return file;
}

const SourceTensor* SafetensorsTestFile::find(std::string_view name) const {
  for (const SourceTensor& tensor : tensors_)
    if (tensor.name == name) return &tensor;
  return nullptr;
}

std::vector<std::string> SafetensorsTestFile::names() const {
  std::vector<std::string> names;
  for (const SourceTensor& tensor : tensors_) names.push_back(tensor.name);
  return names;
}

}  // namespace normrt::test
