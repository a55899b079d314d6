#include "tokenizer.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "arrays.h"
#include "errors.h"
#include "normrt/tokenizer.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace normrt::python {
namespace {

nb::object ids_array(const std::vector<int32_t>& ids) {
  OwnedTensor tensor;
  tensor.is_f32 = false;
  tensor.shape = TensorShape::of({ids.size()});
  tensor.data = std::make_unique<std::byte[]>(ids.empty() ? 1 : ids.size() * sizeof(int32_t));
  if (!ids.empty()) std::memcpy(tensor.data.get(), ids.data(), ids.size() * sizeof(int32_t));
  return to_numpy(std::move(tensor));
}

// Encoding runs without the GIL on a copy of the handle (it shares the
// vocabulary): another thread may set max_length on the Python object
// meanwhile, which swaps the original's implementation.
Encoding encode(const Tokenizer& tokenizer, const std::string& text) {
  const Tokenizer snapshot = tokenizer;
  Expected<Encoding> encoded = Status::error("");
  {
    nb::gil_scoped_release release;
    encoded = snapshot.encode(text);
  }
  return value_or_throw(std::move(encoded), ErrorKind::kInvalidArgument);
}

Encoding encode_pair(const Tokenizer& tokenizer, const std::string& first,
                     const std::string& second) {
  const Tokenizer snapshot = tokenizer;
  Expected<Encoding> encoded = Status::error("");
  {
    nb::gil_scoped_release release;
    encoded = snapshot.encode_pair(first, second);
  }
  return value_or_throw(std::move(encoded), ErrorKind::kInvalidArgument);
}

Tokenizer from_folder(const std::string& path, size_t max_length) {
  Expected<Tokenizer> loaded = Status::error("");
  {
    nb::gil_scoped_release release;
    loaded = Tokenizer::from_folder(path, max_length);
  }
  return value_or_throw(std::move(loaded), ErrorKind::kLoadFailed);
}

Tokenizer from_bytes(nb::bytes bytes) {
  std::string copy(bytes.c_str(), bytes.size());
  Expected<Tokenizer> loaded = Status::error("");
  {
    nb::gil_scoped_release release;
    loaded = Tokenizer::from_bytes(copy);
  }
  return value_or_throw(std::move(loaded), ErrorKind::kLoadFailed);
}

}  // namespace

void bind_tokenizer(nb::module_& m) {
  nb::class_<Encoding>(m, "Encoding", "The ids of a text (or a pair), special tokens included.")
      .def_prop_ro(
          "ids", [](const Encoding& e) { return ids_array(e.ids); },
          nb::for_getter(nb::sig("def ids(self) -> numpy.typing.NDArray[numpy.int32]")),
          nb::for_getter("Token ids, int32 (a new array)."))
      .def_prop_ro(
          "type_ids", [](const Encoding& e) { return ids_array(e.type_ids); },
          nb::for_getter(nb::sig("def type_ids(self) -> numpy.typing.NDArray[numpy.int32]")),
          nb::for_getter("Token type (segment) ids, int32, as long as ids."))
      .def("__len__", [](const Encoding& e) { return e.ids.size(); })
      .def("__repr__",
           [](const Encoding& e) { return "Encoding(" + std::to_string(e.ids.size()) + " ids)"; });

  nb::class_<Tokenizer>(
      m, "Tokenizer",
      "Text to the ids a model was trained on, as Hugging Face tokenizers gives them "
      "(WordPiece, byte-level BPE, Unigram, SentencePiece). Safe to share between threads; "
      "encoding releases the GIL.")
      .def_static("from_folder", &from_folder, "path"_a, "max_length"_a = 0,
                  "A Hugging Face model folder (tokenizer.json, sentencepiece.bpe.model, "
                  "vocab.json + merges.txt or vocab.txt). max_length 0: the folder's "
                  "(sentence_bert_config.json's max_seq_length first). Raises LoadError.")
      .def_static("from_bytes", &from_bytes, "data"_a,
                  "A tokenizer serialized by to_bytes() (or stored in a model file).")
      .def(
          "to_bytes",
          [](const Tokenizer& t) {
            std::string bytes = t.to_bytes();
            return nb::bytes(bytes.data(), bytes.size());
          },
          "The tokenizer as bytes (from_bytes reads them back).")
      .def("encode", &encode, "text"_a,
           "One text: ids with the special tokens, truncated to max_length.")
      .def("encode_pair", &encode_pair, "first"_a, "second"_a,
           "A sentence pair (cross-encoders), truncated as Hugging Face's longest_first.")
      .def_prop_ro(
          "kind", [](const Tokenizer& t) { return std::string(t.kind()); },
          "The kind: wordpiece, byte_level_bpe, unigram or sentencepiece.")
      .def_prop_ro("vocab_size", &Tokenizer::vocab_size)
      .def_prop_rw(
          "max_length", [](const Tokenizer& t) { return t.max_length(); },
          [](Tokenizer& t, size_t max_length) {
            check(t.set_max_length(max_length), ErrorKind::kInvalidArgument);
          },
          "Ids in all, special tokens included (0: no truncation). Setting it changes this "
          "object only (copies made with copy.copy keep theirs).")
      .def(
          "token_id",
          [](const Tokenizer& t, std::string_view token) -> nb::object {
            int32_t id = t.token_id(token);
            if (id < 0) return nb::none();
            return nb::int_(id);
          },
          "token"_a, nb::sig("def token_id(self, token: str) -> int | None"),
          "The id of a token (added tokens first), or None.")
      .def_prop_ro("description", &Tokenizer::description,
                   "What was read: file, kind, vocabulary, max_length and its source.")
      .def("__copy__", [](const Tokenizer& t) { return Tokenizer(t); })
      .def(
          "__deepcopy__", [](const Tokenizer& t, nb::handle) { return Tokenizer(t); }, "memo"_a,
          nb::sig("def __deepcopy__(self, memo: typing.Any) -> Tokenizer"))
      .def("__repr__", [](const Tokenizer& t) {
        return "Tokenizer(kind='" + std::string(t.kind()) +
               "', vocab_size=" + std::to_string(t.vocab_size()) +
               ", max_length=" + std::to_string(t.max_length()) + ")";
      });
}

}  // namespace normrt::python
