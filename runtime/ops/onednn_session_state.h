#pragma once
// The session state of the ops that run a oneDNN primitive (Conv2d and the
// pools, kernels/conv): the primitive's Context of one session, or why it
// could not be made. A session cannot fail to start, so the reason waits in
// the state and run() reports it.
#include <memory>
#include <string>
#include <utility>

#include "base/status.h"
#include "runtime/ops/op.h"

namespace normrt {

/// `Primitive` is OneDnnConv2d or OneDnnPool2d: make_context() gives an
/// Expected<std::unique_ptr<Primitive::Context>>.
template <class Primitive>
struct OneDnnSessionState : OpSessionState {
  std::unique_ptr<typename Primitive::Context> context;  // null: see `error`
  std::string error;                                     // why `context` is null

  /// Makes `primitive`'s Context, or records why it could not.
  void make_context(const Primitive& primitive) {
    auto made = primitive.make_context();
    if (made) {
      context = std::move(made).value();
    } else {
      error = made.status().message();
    }
  }
};

/// run()'s session state, or "<label>: oneDNN could not be prepared for this
/// session: <why>" if it has no Context.
template <class State>
Expected<State*> prepared_onednn_state(const OpRunContext& context, const std::string& label) {
  auto* state = static_cast<State*>(context.session_state);
  if (state == nullptr || state->context == nullptr) {
    return Status::error(label + ": oneDNN could not be prepared for this session: " +
                         (state ? state->error : std::string("no session state")));
  }
  return state;
}

}  // namespace normrt
