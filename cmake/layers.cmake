# normrt's layers, lowest first (the list the top CMakeLists.txt describes;
# check_layers.cmake enforces it, as the test test_layers). A source file belongs to the layer of the longest
# prefix that matches its path; it may include (#include "...") files of its
# own layer and of the layers before it, never of a later one. tests/,
# bench/ and fuzz/ sit above everything and are not checked.
#
# Each entry: "<name>=<path prefix>[,<path prefix>...]".
set(NORMRT_LAYERS
  # normrt_base: Status/Expected, bf16, the mapped file, Isa names.
  "base=base/,include/normrt/status.h,include/normrt/export.h"
  # normrt_kernels (+ normrt_kernels_onednn): xsimd kernels, ISA dispatch.
  "kernels=kernels/"
  # normrt_runtime (and libnormrt.so), its folders in the order they build on
  # each other: graph IR, op schemas and kernels, graph_validate (a graph
  # against the op schemas), model file, passes, memory plan, Model/Session,
  # decoding, C API.
  "runtime/graph=runtime/graph/"
  "runtime/ops=runtime/ops/"
  "runtime/validate=runtime/validate/"
  "runtime/format=runtime/format/"
  "runtime/passes=runtime/passes/"
  "runtime/plan=runtime/plan/"
  "runtime/exec=runtime/exec/,include/normrt/normrt.hpp"
  "runtime/decode=runtime/decode/,include/normrt/decode.hpp"
  "runtime/api=runtime/api/,include/normrt/normrt.h"
  # normrt_models (+ _transformer, _rnnsearch): config + weights -> graphs.
  "models=models/"
  # the tools' libraries and executables: readers, convert, text (and its
  # public API, libnormrt_tokenizer), run, serve, bench.
  "tools=tools/,include/normrt/tokenizer.hpp"
)
