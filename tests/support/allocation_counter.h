#pragma once
// Counts the heap allocations (operator new, throwing and nothrow) made by
// the calling thread between start_counting_allocations() and
// stop_counting_allocations(). Linking allocation_counter.cc replaces the
// global operator new/delete of the test program.
#include <cstddef>

namespace normrt::testing {

void start_counting_allocations();
/// The number of allocations since start_counting_allocations().
size_t stop_counting_allocations();

}  // namespace normrt::testing
