#pragma once
// A byte budget shared by all requests in flight (--max-inflight-bytes). A
// request reserves its worst-case footprint before its body is read
// (ModelService::request_bytes()); a reservation that does not fit is refused
// at once (503 with Retry-After), so the memory that requests hold together
// never exceeds the budget. Thread-safe.
#include <atomic>
#include <cstddef>
#include <memory>

namespace normrt::serve {

class MemoryBudget {
 public:
  explicit MemoryBudget(size_t capacity) : capacity_(capacity) {}

  /// Held bytes, given back when destroyed.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { reset(); }
    size_t bytes() const { return bytes_; }
    void reset();

   private:
    friend class MemoryBudget;
    Reservation(MemoryBudget* budget, size_t bytes) : budget_(budget), bytes_(bytes) {}
    MemoryBudget* budget_ = nullptr;
    size_t bytes_ = 0;
  };

  /// `bytes` of the budget, or false (nothing reserved) if they do not fit.
  bool try_reserve(size_t bytes, Reservation* reservation);

  size_t capacity() const { return capacity_; }
  size_t used() const { return used_.load(std::memory_order_relaxed); }

 private:
  const size_t capacity_;
  std::atomic<size_t> used_{0};
};

}  // namespace normrt::serve
