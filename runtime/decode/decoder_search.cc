// The search loop of greedy (K = 1) and beam (K > 1) decoding, as Nematus'
// gen_sample: each step keeps the best K − finished continuations of the
// live hypotheses; one ending in EOS is finished and leaves the beam; the
// search stops when K are finished, none is live, or at max_length.
//
// Sessions are handed on, not copied, where they can be: a hypothesis'
// first child takes over its session; a further child of the same parent
// gets a free session (one no live hypothesis holds, e.g. a parent's without
// children) into which copy_state_from() forks the parent. So K sessions
// suffice, and greedy decoding copies nothing.
#include <algorithm>
#include <cmath>
#include <string>

#include "base/status.h"
#include "runtime/decode/decoder_impl.h"

namespace normrt {
namespace {

std::string where(size_t step, size_t hypothesis) {
  return "Decoder: step " + std::to_string(step) + ", hypothesis " + std::to_string(hypothesis) +
         ": ";
}

// The last row of the session's logits [rows, V]. (Messages are built on
// failure only: a step allocates nothing.)
Expected<const float*> last_logits_row(const Decoder::Impl& d, const Session& session, size_t step,
                                       size_t hypothesis) {
  Expected<TensorRef> out = session.output(d.options.logits_output);
  if (!out) return Status::error(where(step, hypothesis) + out.status().message());
  if (out->shape.rank != 2 || out->shape[1] != d.vocab || out->shape[0] == 0) {
    return Status::error(where(step, hypothesis) + "logits '" + d.options.logits_output +
                         "' have " + std::to_string(out->elements()) +
                         " values, expected rows × V = " + std::to_string(d.vocab));
  }
  return out->f32() + (out->shape[0] - 1) * d.vocab;
}

// Feeds `count` tokens (borrowed until run() returns) in one run.
Status feed(Decoder::Impl& d, Session& session, const int32_t* tokens, size_t count) {
  NORMRT_RETURN_IF_ERROR(session.set_input(d.options.token_input, tokens, count * sizeof(int32_t)));
  ++d.stats.runs;
  return session.run();
}

// Resets and prepares every session, then feeds the prefix to the first.
Status start(Decoder::Impl& d, const std::vector<int32_t>& prefix,
             const Decoder::Prepare& prepare) {
  for (size_t i = 0; i < d.sessions.size(); ++i) {
    d.sessions[i]->reset();
    if (!prepare) continue;
    if (Status s = prepare(*d.sessions[i]); !s) {
      return Status::error("Decoder: prepare (session " + std::to_string(i) + "): " + s.message());
    }
  }
  Session& first = *d.sessions[0];
  Status fed = Status::ok();
  if (d.token_input_has_sequence) {
    fed = feed(d, first, prefix.data(), prefix.size());
  } else {
    for (size_t i = 0; i < prefix.size() && fed; ++i) fed = feed(d, first, &prefix[i], 1);
  }
  if (fed) return fed;
  return Status::error("Decoder: feeding the prefix (" + std::to_string(prefix.size()) +
                       " tokens): " + fed.message());
}

// Reads each live hypothesis' logits row and its log-softmax normalizer.
Status read_logits(Decoder::Impl& d, size_t step) {
  for (size_t i = 0; i < d.beam.live; ++i) {
    NORMRT_ASSIGN_OR_RETURN(const float* r, last_logits_row(d, *d.beam.session[i], step, i));
    d.rows[i] = r;
    d.log_norm[i] = log_sum_exp(r, d.vocab);
    if (!std::isfinite(d.log_norm[i])) {
      size_t bad = 0;
      while (bad + 1 < d.vocab && std::isfinite(r[bad]) && r[bad] != -INFINITY) ++bad;
      return Status::error(where(step, i) + "logits '" + d.options.logits_output +
                           "' have no finite log-softmax (index " + std::to_string(bad) + " of " +
                           std::to_string(d.vocab) + " is " + std::to_string(r[bad]) + ")");
    }
  }
  return Status::ok();
}

// Gives each next hypothesis a session holding its parent's state (see top).
Status hand_on_sessions(Decoder::Impl& d) {
  Beam& beam = d.beam;
  Beam& next = d.next;
  std::fill(d.session_handed_on.begin(), d.session_handed_on.begin() + beam.live, 0);
  for (size_t j = 0; j < next.live; ++j) {
    const uint32_t parent = next.parent[j];
    next.session[j] = d.session_handed_on[parent] ? nullptr : beam.session[parent];
    d.session_handed_on[parent] = 1;
  }
  for (size_t i = 0; i < beam.live; ++i) {
    if (!d.session_handed_on[i]) d.free_sessions.push_back(beam.session[i]);
  }
  // Every copy before any run: a parent's session still holds its state.
  for (size_t j = 0; j < next.live; ++j) {
    if (next.session[j] != nullptr) continue;
    Session* fork = d.free_sessions.back();
    d.free_sessions.pop_back();
    NORMRT_RETURN_IF_ERROR(fork->copy_state_from(*beam.session[next.parent[j]]));
    ++d.stats.forks;
    next.session[j] = fork;
  }
  return Status::ok();
}

// The ended hypotheses as results, ranked by score (stable: finished in the
// order they finished, then the live ones best first), the first n_best.
std::vector<Hypothesis> ranked_results(const Decoder::Impl& d) {
  std::vector<Hypothesis> results;
  results.reserve(d.ended.size());
  for (const Ended& e : d.ended) {
    Hypothesis h;
    h.ids = d.tree.ids(e.node);
    h.log_prob = e.log_prob;
    h.finished = e.finished;
    const double alpha = d.options.length_alpha;
    h.score = alpha == 0 ? h.log_prob : h.log_prob / std::pow(double(h.ids.size()), alpha);
    results.push_back(std::move(h));
  }
  std::stable_sort(results.begin(), results.end(),
                   [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  if (results.size() > d.options.n_best) results.resize(d.options.n_best);
  return results;
}

}  // namespace

Expected<std::vector<Hypothesis>> run_beam_search(Decoder::Impl& d,
                                                  const std::vector<int32_t>& prefix,
                                                  const Decoder::Prepare& prepare) {
  const DecodeOptions& o = d.options;
  const size_t k = o.beam_size;
  d.stats = DecodeStats();
  NORMRT_RETURN_IF_ERROR(start(d, prefix, prepare));

  Beam& beam = d.beam;
  Beam& next = d.next;
  beam.live = 1;
  beam.session[0] = d.sessions[0].get();
  beam.node[0] = HypothesisTree::kNoNode;
  beam.log_prob[0] = 0;
  d.free_sessions.clear();
  for (size_t i = 1; i < k; ++i) d.free_sessions.push_back(d.sessions[i].get());
  d.tree.size = 0;
  d.ended.clear();
  size_t finished = 0;

  for (size_t step = 0; step < o.max_length; ++step) {
    d.stats.steps = step + 1;
    NORMRT_RETURN_IF_ERROR(read_logits(d, step));
    const std::vector<BeamCandidate>& chosen = d.selector.select(
        d.rows.data(), d.log_norm.data(), beam.log_prob.data(), beam.live, d.vocab, k - finished);

    // Finished candidates leave the beam; the others form the next one.
    next.live = 0;
    for (const BeamCandidate& c : chosen) {
      const uint32_t node = d.tree.add(c.token, beam.node[c.parent]);
      if (c.token == o.eos_id) {
        d.ended.push_back({node, c.log_prob, true});
        ++finished;
        continue;
      }
      next.node[next.live] = node;
      next.parent[next.live] = c.parent;
      next.log_prob[next.live] = c.log_prob;
      ++next.live;
    }
    if (next.live == 0) break;
    if (step + 1 == o.max_length) {  // cut: no need to run the last tokens
      for (size_t j = 0; j < next.live; ++j)
        d.ended.push_back({next.node[j], next.log_prob[j], false});
      break;
    }
    if (Status s = hand_on_sessions(d); !s) return Status::error(where(step, 0) + s.message());
    for (size_t j = 0; j < next.live; ++j) {
      const int32_t* token = &d.tree.token[next.node[j]];
      if (Status s = feed(d, *next.session[j], token, 1); !s) {
        return Status::error(where(step + 1, j) + "feeding token " + std::to_string(*token) + ": " +
                             s.message());
      }
    }
    std::swap(beam, next);
  }
  return ranked_results(d);
}

}  // namespace normrt
