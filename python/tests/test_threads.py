"""The GIL is released while normrt works, and sessions are safe to share.

How the GIL test works: a second Python thread records time stamps in a
loop while the main thread is inside one call. Holding the GIL, the call
would let that thread run at most one switch interval after the call began
(while the main thread had not yet entered C++); released, the thread keeps
recording throughout. So the test asks for stamps in the middle of the call,
well past the switch interval."""

import sys
import threading
import time

import numpy as np
import pytest

import normrt
import support


class Ticker:
    """A Python thread that records perf_counter stamps until stopped."""

    def __init__(self):
        self.stamps = []
        self.stop = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        self.started.set()
        while not self.stop.is_set():
            self.stamps.append(time.perf_counter())

    def __enter__(self):
        self.thread.start()
        self.started.wait()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def stamps_inside(call, *, margin: float):
    """Runs `call` in the main thread beside a Ticker; returns (the call's
    duration, stamps recorded between start + margin and end − margin)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        with Ticker() as ticker:
            time.sleep(0.01)
            begin = time.perf_counter()
            call()
            end = time.perf_counter()
    finally:
        sys.setswitchinterval(interval)
    inside = [t for t in ticker.stamps if begin + margin < t < end - margin]
    return end - begin, inside


def test_run_releases_the_gil(wide_bert):
    model = normrt.Model(str(wide_bert))
    session = normrt.Session(model)
    ids = np.arange(model.max_sequence_length, dtype=np.int32) % 512
    session.run({"input_ids": ids})  # warm
    duration, inside = stamps_inside(lambda: session.run({"input_ids": ids}), margin=0.01)
    assert duration > 0.03, f"the run took {duration * 1e3:.1f} ms: too short to tell"
    assert len(inside) > 100, (
        f"a Python thread made {len(inside)} steps during a {duration * 1e3:.0f} ms run"
    )


def test_encode_releases_the_gil():
    tokenizer = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / "bert_uncased"))
    tokenizer.max_length = 0  # no truncation: the whole text is tokenized
    text = "tokenization of a very long text keeps the tokenizer busy; " * 40000
    duration, inside = stamps_inside(lambda: tokenizer.encode(text), margin=0.01)
    assert duration > 0.03, f"encode took {duration * 1e3:.1f} ms: too short to tell"
    assert len(inside) > 100


def test_threads_sharing_one_session_each_get_their_own_result(tiny_bert):
    """Calls on one Session from two threads run one at a time: run(inputs)
    binds and runs atomically, so each thread gets the answer to its ids."""
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    ids = tiny_bert["fixture"].ids
    cases = [ids[:7], ids[1:4]]
    want = [session.run({"input_ids": c})["last_hidden_state"].tobytes() for c in cases]
    wrong = []

    def work(which):
        for _ in range(300):
            got = session.run({"input_ids": cases[which]})["last_hidden_state"]
            if got.tobytes() != want[which]:
                wrong.append(which)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


@pytest.mark.parametrize("threads", [2, 4])
def test_sessions_on_threads_run_in_parallel_with_correct_results(tiny_bert, threads):
    model = normrt.Model(str(tiny_bert["plain"]))
    ids = tiny_bert["fixture"].ids[:7]
    want = normrt.Session(model).run({"input_ids": ids})["last_hidden_state"].tobytes()
    results = []

    def work():
        session = normrt.Session(model)
        results.extend(session.run({"input_ids": ids})["last_hidden_state"].tobytes() == want
                       for _ in range(100))

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert len(results) == 100 * threads and all(results)


def test_changing_max_length_while_other_threads_encode_is_safe():
    """Encoding runs without the GIL; setting max_length meanwhile swaps the
    tokenizer's implementation, which the running encodes must not lose."""
    tokenizer = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / "bert_uncased"))
    text = "the quick brown fox jumps over the lazy dog " * 200
    full = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / "bert_uncased"))
    full.max_length = 0
    lengths = {0: len(full.encode(text)), 16: 16}
    seen = []
    stop = threading.Event()
    tokenizer.max_length = 16

    def encode():
        while not stop.is_set():
            seen.append(len(tokenizer.encode(text)))

    workers = [threading.Thread(target=encode) for _ in range(2)]
    for w in workers:
        w.start()
    for i in range(400):
        tokenizer.max_length = (0, 16)[i % 2]
    stop.set()
    for w in workers:
        w.join()
    assert seen and set(seen) <= set(lengths.values())
