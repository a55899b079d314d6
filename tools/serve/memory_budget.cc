#include "tools/serve/memory_budget.h"

namespace normrt::serve {

MemoryBudget::Reservation::Reservation(Reservation&& other) noexcept
    : budget_(other.budget_), bytes_(other.bytes_) {
  other.budget_ = nullptr;
  other.bytes_ = 0;
}

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    reset();
    budget_ = other.budget_;
    bytes_ = other.bytes_;
    other.budget_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

void MemoryBudget::Reservation::reset() {
  if (budget_ != nullptr) budget_->used_.fetch_sub(bytes_, std::memory_order_acq_rel);
  budget_ = nullptr;
  bytes_ = 0;
}

bool MemoryBudget::try_reserve(size_t bytes, Reservation* reservation) {
  size_t used = used_.load(std::memory_order_relaxed);
  do {
    if (bytes > capacity_ || used > capacity_ - bytes) return false;
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_acq_rel));
  *reservation = Reservation(this, bytes);
  return true;
}

}  // namespace normrt::serve
