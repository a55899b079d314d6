#include "tests/support/allocation_counter.h"

#include <cstdlib>
#include <new>

namespace {
thread_local bool counting = false;
thread_local size_t allocations = 0;
}  // namespace

// Every scalar new comes from malloc, so that every scalar delete may free.
// The nothrow form matters: std::stable_sort allocates its buffer with it.
void* operator new(size_t size) {
  if (counting) ++allocations;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete(void* memory, size_t) noexcept { std::free(memory); }

namespace normrt::testing {

void start_counting_allocations() {
  allocations = 0;
  counting = true;
}

size_t stop_counting_allocations() {
  counting = false;
  return allocations;
}

}  // namespace normrt::testing
