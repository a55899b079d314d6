#pragma once
// normrt.Session: one request stream over a Model (normrt::Session).
//
// Threads: every call releases the GIL before it takes the session's lock,
// so a run blocks neither other Python threads nor (for its duration) other
// calls on other sessions; calls on one session from several threads are
// serialized, never concurrent. Lock order: the session lock, then the GIL
// (taken back under the lock only to update the arrays kept alive).
//
// Inputs are borrowed (normrt::Session::set_input): the session keeps a
// reference to each bound array until that input is bound again, so a
// C-contiguous int32 / float32 array is read in place by every later run.
#include <nanobind/nanobind.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arrays.h"
#include "model.h"

namespace normrt::python {

class PySession {
 public:
  PySession(const PyModel& model, size_t threads, bool profile, size_t max_batch);

  void set_input(const std::string& name, nanobind::handle value);
  /// Binds `inputs` (name → array-like), runs, and returns every output as
  /// a copy, all under one hold of the lock.
  nanobind::dict run(nanobind::handle inputs, nanobind::handle attention_mask);
  /// Session::set_attention_mask: a [B, S] int32/int64 array-like, or None to clear.
  void set_attention_mask(nanobind::handle mask);
  nanobind::object output(const std::string& name, bool copy, nanobind::handle self);
  void reset();
  size_t position();
  nanobind::object state(const std::string& name);
  void set_state(const std::string& name, nanobind::handle value);
  void copy_state_from(PySession& other);
  nanobind::list profile();
  void profile_reset();
  const PyModel& model() const { return model_; }

 private:
  // Binds under the lock (held by the caller); keeps the array alive.
  void bind_locked(const std::string& name, InputArray& input);
  // Sets or (mask.data null) clears the mask under the lock (held by the caller).
  void mask_locked(const InputArray& mask);

  PyModel model_;
  std::unique_ptr<Session> session_;
  std::mutex mutex_;
  std::map<std::string, nanobind::object> bound_;  // touched with the GIL held
};

void bind_session(nanobind::module_& m);

}  // namespace normrt::python
