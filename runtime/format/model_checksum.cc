#include "runtime/format/model_checksum.h"

#include <xxhash.h>

#include <memory>
#include <string>

#include "runtime/format/little_endian.h"
#include "runtime/format/model_format.h"

namespace normrt {

using namespace model_format;

Expected<uint64_t> compute_model_checksum(const std::byte* data, size_t size) {
  constexpr size_t kAfterField = kChecksumField + kChecksumFieldSize;
  if (size < kAfterField) {
    return Status::error("model checksum: a model file needs at least " +
                         std::to_string(kAfterField) + " bytes, found " + std::to_string(size));
  }
  // The streaming API hashes the two pieces as one message. Its state comes
  // from the library (not the stack): the struct's layout is not part of the
  // shared library's stable ABI.
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(),
                                                                        XXH3_freeState);
  if (state == nullptr) return Status::error("model checksum: out of memory for the XXH3 state");
  XXH3_64bits_reset(state.get());
  XXH3_64bits_update(state.get(), data, kChecksumField);
  XXH3_64bits_update(state.get(), data + kAfterField, size - kAfterField);
  return static_cast<uint64_t>(XXH3_64bits_digest(state.get()));
}

Status restamp_model_checksum(std::byte* data, size_t size) {
  NORMRT_ASSIGN_OR_RETURN(uint64_t checksum, compute_model_checksum(data, size));
  little_endian::store<uint64_t>(data + kChecksumField, checksum);
  return Status::ok();
}

}  // namespace normrt
