#pragma once
/// Decoding loops over a normrt::Session (greedy and beam search).
/// Declared by the decoding loop's author; see docs/decoding.md.
