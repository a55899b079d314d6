#pragma once
// Quantizes the matrices of a graph to int8 (runtime/graph/int8_weight.h):
// every f32 or bf16 weight read only as the matrix operand of Linear,
// FusedLinear, LstmCell, GruCell or GruRecurrence nodes, except those that a
// keep pattern names. Norms, softmax, attention, embeddings and vectors stay
// f32. The converter runs it (`--dtype int8`, `--keep-f32`); the runtime does not.
#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The matrices `normrt-convert --dtype int8` keeps in f32 unless --keep-f32
/// says otherwise (comma-separated globs), chosen by measurement on
/// all-MiniLM-L6-v2 (docs/int8.md, "Which layers stay f32"): the layers whose
/// int8 error was largest. Llama's patterns follow by analogy (not measured).
extern const char* const kDefaultInt8KeepF32;

struct Int8Report {
  size_t quantized = 0;  ///< weights now int8
  size_t kept = 0;       ///< matrices a keep pattern left in their dtype
  std::vector<std::string> kept_names;
  /// The keep patterns that named no matrix (neither its weight nor a node
  /// that reads it), in the order given: a misspelt one would otherwise
  /// quantize what it meant to keep, unseen (the converter refuses them).
  std::vector<std::string> unmatched;
  /// The first matrix's weight and node names, for a message that shows how
  /// the names of this graph read ("" if it has no matrix).
  std::string example_weight, example_node;
};

/// `keep`: glob patterns (`*` any run of characters, `?` one character) over
/// weight names and the names of the nodes that read them; a matrix matched
/// by either stays as it is.
Expected<Int8Report> quantize_weights_int8(Graph& graph, const std::vector<std::string>& keep);

/// True if `text` matches the glob `pattern` (`*`, `?`; no character classes).
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace normrt
