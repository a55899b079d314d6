// The replacement of the global allocation functions behind AllocationProbe.
// Every form (plain, array, nothrow, sized delete) goes through malloc/free so
// that the pairs stay consistent (AddressSanitizer checks them); aligned
// forms keep the library's own implementation.
#include "tests/runtime/format/allocation_probe.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace normrt::testing {
namespace {

std::atomic<int> g_probes{0};
std::atomic<size_t> g_largest{0};

void record(size_t size) {
  if (g_probes.load(std::memory_order_relaxed) == 0) return;
  size_t seen = g_largest.load(std::memory_order_relaxed);
  while (size > seen && !g_largest.compare_exchange_weak(seen, size)) {
  }
}

void* allocate(size_t size) {
  record(size);
  return std::malloc(size == 0 ? 1 : size);
}

}  // namespace

AllocationProbe::AllocationProbe() {
  g_probes.fetch_add(1);
  reset();
}
AllocationProbe::~AllocationProbe() { g_probes.fetch_sub(1); }
size_t AllocationProbe::largest() const { return g_largest.load(); }
void AllocationProbe::reset() { g_largest.store(0); }

}  // namespace normrt::testing

using normrt::testing::allocate;

void* operator new(size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
