#include "tools/output/temp_file_cleanup.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace normrt {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kSlots = 8;  // RNNSearch writes two files at once; room to spare

// A slot is free, claimed (its path being written) or used (the handler
// removes its path).
enum SlotState : int { kFree = 0, kClaimed = 1, kUsed = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};
Slot slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the handler reads the states");

extern "C" void remove_temp_files_and_die(int signal_number) {
  for (Slot& slot : slots)
    if (slot.state.load(std::memory_order_acquire) == kUsed) ::unlink(slot.path);
  // The handler was installed with SA_RESETHAND: the default action is back,
  // and the signal, blocked while the handler runs, kills the process as
  // soon as the handler returns.
  ::raise(signal_number);
}

sigset_t cleanup_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  return set;
}

}  // namespace

void install_temp_file_signal_cleanup() {
  for (int s : kSignals) {
    struct sigaction current {};
    if (::sigaction(s, nullptr, &current) != 0) continue;
    if (current.sa_handler == SIG_IGN || current.sa_handler == remove_temp_files_and_die) continue;
    struct sigaction action {};
    action.sa_handler = remove_temp_files_and_die;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(s, &action, nullptr);
  }
}

int register_temp_file(const char* path) {
  const size_t length = std::strlen(path);
  if (length >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = slots[i];
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire))
      continue;
    std::memcpy(slot.path, path, length + 1);
    slot.state.store(kUsed, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_temp_file(int slot) {
  if (slot >= 0 && slot < kSlots) slots[slot].state.store(kFree, std::memory_order_release);
}

TempFileSignalBlock::TempFileSignalBlock() {
  const sigset_t block = cleanup_signals();
  ::pthread_sigmask(SIG_BLOCK, &block, &saved_);
}

TempFileSignalBlock::~TempFileSignalBlock() { ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

}  // namespace normrt
