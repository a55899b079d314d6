#include "tools/serve/padded_batch.h"

#include <algorithm>
#include <numeric>

#include "base/status.h"

namespace normrt::serve {

std::vector<size_t> longest_first(const std::vector<size_t>& lengths) {
  std::vector<size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return lengths[a] > lengths[b]; });
  return order;
}

Status run_padded(Session& session, std::vector<PaddedInput>& inputs, std::vector<int32_t>& mask) {
  const std::vector<const std::vector<int32_t>*>& lengths_of = inputs.front().rows;
  const size_t count = lengths_of.size();
  const size_t length = lengths_of.front()->size();
  mask.assign(count * length, 0);
  for (size_t r = 0; r < count; ++r) {
    std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(r * length), lengths_of[r]->size(), 1);
  }
  const TensorShape shape = TensorShape::of({count, length});
  for (PaddedInput& input : inputs) {
    input.buffer.assign(count * length, 0);
    for (size_t r = 0; r < count; ++r) {
      const std::vector<int32_t>& one = *input.rows[r];
      std::copy(one.begin(), one.end(),
                input.buffer.begin() + static_cast<std::ptrdiff_t>(r * length));
    }
    NORMRT_RETURN_IF_ERROR(
        session.set_input(input.name, ElementType::kI32, input.buffer.data(), shape));
  }
  NORMRT_RETURN_IF_ERROR(session.set_attention_mask(ElementType::kI32, mask.data(), shape));
  return session.run();
}

}  // namespace normrt::serve
