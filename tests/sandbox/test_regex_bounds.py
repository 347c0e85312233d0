"""User regexes under bounds (issue 18, points 1, 3, 5 and the upload vocabulary limit), in-process.

The pattern that took a server to 23 GB is refused without this process compiling it;
split patterns go through the same check; the sandbox child survives a runaway; a
tokenizer.json whose regexes backtrack is refused naming the pattern, the shipped ones
pass; vocabularies over max_upload_vocab are refused naming the size and the setting; and
a Hugging Face encode lets other Python threads run.
"""

from __future__ import annotations

import gzip
import json
import random
import resource
import threading
import time
from array import array

import pytest

from app.backends.huggingface import cuts
from app.bpe import split
from app.errors import InvalidInput
from app.inspect import search
from app.inspect.cache import inspected
from app.sandbox import backtrack, runner
from app.settings import REPO_ROOT, Settings
from app.tokenizers.registry import default_registry
from app.tokenizers.user import upload_check, uploads

HUGE = "(?:(?:a{1000}){1000}){1000}"  # the pattern: 23 GB when compiled in the server
LARGE = "(?:a{1000}){1000}"  # ~270 MB to compile: over the sandbox's bound, harmless if compiled here
DEEPSEEK = REPO_ROOT / "tokenizers" / "deepseek_v4.tokenizer.json.gz"


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


@pytest.fixture(scope="module")
def gpt2():
    return inspected(default_registry(Settings()).get("gpt2"))


@pytest.mark.parametrize("pattern", [HUGE, LARGE])
def test_a_regex_search_too_large_to_compile_is_a_422_naming_it(gpt2, pattern):
    before = _peak_mb()
    with pytest.raises(InvalidInput) as caught:
        search.search(gpt2, pattern, "regex")
    assert caught.value.status == 422 and pattern[:20] in caught.value.message
    assert "too large to compile" in caught.value.message and "mode=substring" in caught.value.message
    assert _peak_mb() - before < 100  # compiled elsewhere, if at all


def test_regex_search_still_finds_and_refuses_as_before(gpt2):
    found = search.search(gpt2, r"^ [A-Z]{12,}$", "regex", limit=500)
    assert found["total"] > 0 and all(m["text"][1:].isupper() for m in found["matches"])
    with pytest.raises(InvalidInput, match=r"'\(a' is not a valid regular expression"):
        search.search(gpt2, "(a", "regex")


def test_split_patterns_get_the_same_check_before_this_process_compiles_them():
    before = _peak_mb()
    for pattern in (HUGE, LARGE):
        with pytest.raises(InvalidInput) as caught:
            split.compile_custom(pattern)
        assert "split pattern" in caught.value.message and "too large to compile" in caught.value.message
    assert _peak_mb() - before < 100
    with pytest.raises(InvalidInput, match="too large to compile"):
        uploads.resolve_pattern(HUGE)  # a .tiktoken upload's pattern, checked in the server before the child


def test_a_tiktoken_pattern_that_backtracks_is_refused_at_upload():
    with pytest.raises(InvalidInput) as caught:
        uploads.resolve_pattern(r"(?:q|qq)+r|[^q]+|q")
    assert "(?:q|qq)+r" in caught.value.message and "too slow" in caught.value.message


def _fifty_a_runs() -> tuple[bytes, bytes]:
    """A vocabulary for the child: 50 texts "aaa...a!" (30 a's), joined, and where each starts."""
    blob = ("a" * 30 + "!").encode() * 50
    return blob, bytes(array("I", range(0, len(blob) + 1, 31)))


def test_the_sandbox_child_is_killed_on_timeout_and_replaced():
    box = runner.Sandbox(children=1)
    try:
        blob, starts = _fifty_a_runs()
        with pytest.raises(runner.SandboxTimeout):
            box.call(("search", "k", r"(?:a|aa)+$", 60.0, blob, starts), timeout_s=0.5)
        assert box.call(("compile", "a+"), timeout_s=30) == ("ok", 0)
        assert box.call(("search", "k", "!", 1.0, blob, starts), timeout_s=30)[0] == "ok"
    finally:
        box.close()


def test_a_search_that_backtracks_is_stopped_by_the_child_s_timer_in_the_middle_of_a_match():
    # (?:a|aa)+$ on "aaa...!" tries every way to cut the a's: hours for one text. The child's
    # timer (SIGALRM) ends it at the search's budget, well before the caller's wait, and the
    # same child answers the next search.
    box = runner.Sandbox(children=1)
    try:
        blob, starts = _fifty_a_runs()
        started = time.monotonic()
        answer = box.call(("search", "k", r"(?:a|aa)+$", 0.5, blob, starts), timeout_s=30)
        assert answer == ("slow", "it took more than 0.5 s over the vocabulary")
        assert time.monotonic() - started < 10
        assert box.call(("search", "k", "!", 1.0), timeout_s=30) == (
            "ok",
            bytes(array("I", range(50))),
        )
    finally:
        box.close()


# -- Hugging Face files -----------------------------------------------------------------------------


def _word_level(pre_tokenizer: dict | None = None, normalizer: dict | None = None, size: int = 300) -> bytes:
    vocab = {"[UNK]": 0, **{f"w{i}": i + 1 for i in range(size - 1)}}
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
        }
    ).encode()


def _split(pattern: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


@pytest.mark.parametrize(
    "pre_tokenizer, normalizer, shown",
    [
        (_split("(q|qq)+r"), None, "(q|qq)+r"),
        ({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, _split("(?:q|qq)+r")]}, None, "(?:q|qq)+r"),
        (
            None,
            {"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"Regex": "(a+)+$"}, "content": ""}]},
            "(a+)+$",
        ),
        (_split(r"\s+$|\S+|\s"), None, r"\\s+$"),  # no known-bad shape: the timed probe finds it
    ],
)
def test_a_tokenizer_json_whose_regex_backtracks_is_refused_naming_it(pre_tokenizer, normalizer, shown):
    with pytest.raises(InvalidInput) as caught:
        uploads.check(_word_level(pre_tokenizer, normalizer), "slow", "")
    assert caught.value.status == 422 and shown in caught.value.message, caught.value.message


def test_the_shipped_deepseek_file_and_plain_regexes_pass():
    assert backtrack.probe_problem(r"\p{N}{1,3}", lambda text: None) is None
    facts, _ = uploads.check(gzip.decompress(DEEPSEEK.read_bytes()), "deep", "")
    assert facts.vocab_size > 128_000
    facts, _ = uploads.check(_word_level(_split(r"\w+|[^\w\s]+")), "words", "")
    assert facts.vocab_size == 300


def test_deepseek_s_regexes_pass_both_checks_and_a_file_s_are_not_probed_again(monkeypatch):
    from tokenizers import Regex, pre_tokenizers

    known = upload_check.known_regexes()
    assert known == set(cuts.PROVEN_REGEXES) and len(known) == 3
    for pattern in sorted(known):  # what the probe would say at each upload, said once here
        run = pre_tokenizers.Split(Regex(pattern), behavior="isolated").pre_tokenize_str
        assert backtrack.shape_problem(pattern) is None and backtrack.probe_problem(pattern, run) is None, pattern
    probed = []
    monkeypatch.setattr(backtrack, "probe_problem", lambda pattern, run: probed.append(pattern))
    data = gzip.decompress(DEEPSEEK.read_bytes())
    upload_check.check_huggingface(data, 200_000)
    assert probed == []
    changed = cuts.PROVEN_REGEXES[0].replace("{1,3}", "{1,4}")  # one character off: probed, as any other
    old, new = (json.dumps(pattern).encode() for pattern in (cuts.PROVEN_REGEXES[0], changed))
    upload_check.check_huggingface(data.replace(old, new), 200_000)
    assert probed == [changed]


def test_the_shape_check_knows_the_classic_cases():
    for bad in ("(q|qq)+r", "(a+)+$", "(?:x*)*y", r"(?:\s*\S+)+", "(?:a|ab)*c"):
        assert backtrack.shape_problem(bad), bad
    for fine in (r"(?:'\w+)*", "(?:ab|ac)+", "(?>a+)+", "(a++)+", r"\p{N}{1,3}", r"\s+(?!\S)|\s+"):
        assert backtrack.shape_problem(fine) is None, fine


# -- the upload vocabulary limit ------------------------------------------------------------------------


def test_a_2m_rank_tiktoken_file_is_refused_before_any_child_starts(monkeypatch):
    monkeypatch.setattr(uploads, "_run_child", lambda *a: pytest.fail("the child should not start"))
    data = b"".join(b"%s %d\n" % (__import__("base64").b64encode(i.to_bytes(3, "big")), i) for i in range(2_000_000))
    assert len(data) < 48 << 20
    with pytest.raises(InvalidInput) as caught:
        uploads.check(data, "big", "", kind="tiktoken", pattern="gpt4", max_vocab=300_000)
    assert "2,000,000" in caught.value.message and "max_upload_vocab" in caught.value.message


@pytest.mark.parametrize("model", ["WordLevel", "BPE"])
def test_a_2m_entry_tokenizer_json_is_refused_in_the_child(model):
    vocab = {f"t{i}": i for i in range(2_000_000)}
    body = (
        {"type": "WordLevel", "vocab": vocab, "unk_token": "t0"}
        if model == "WordLevel"
        else {"type": "BPE", "vocab": vocab, "merges": [], "unk_token": "t0"}
    )
    data = json.dumps(
        {
            "version": "1.0",
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": None,
            "model": body,
        }
    ).encode()
    assert len(data) < 48 << 20
    with pytest.raises(InvalidInput) as caught:
        uploads.check(data, "big", "", max_vocab=300_000)
    assert "2,000,000" in caught.value.message and "max_upload_vocab" in caught.value.message


def test_a_built_vocabulary_over_the_limit_is_refused_too():
    with pytest.raises(InvalidInput, match="300 entries, over the limit of 256"):
        uploads.check(_word_level(size=300), "small", "", max_vocab=256)


# -- Hugging Face encoding lets go of the GIL ------------------------------------------------------------


def test_a_long_deepseek_encode_lets_other_threads_run():
    tokenizer = default_registry(Settings()).get("deepseek_v4")
    rng = random.Random(1)
    text = "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(500_000))
    ticks, done = [0], threading.Event()

    def other_thread():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    thread = threading.Thread(target=other_thread)
    thread.start()
    try:
        ids = tokenizer.encode(text)
    finally:
        done.set()
        thread.join()
    assert len(ids) > 100_000
    assert ticks[0] > 20, f"the other thread ran {ticks[0]} times during the encode (the GIL was held)"


def test_the_backtracking_probe_does_not_count_time_spent_waiting_for_the_cpu():
    """A linear pattern on a busy machine: its run is descheduled for a time that grows with
    the text (here a sleep, quadratic in the length) while its own work stays linear. Timed by
    the wall clock the probe took that for backtracking and refused deepseek_v4's own
    tokenizer.json (`\\p{N}{1,3}`) when other processes had the CPU; in CPU time it passes."""
    import regex

    compiled = regex.compile(r"\p{N}{1,3}")

    def busy_machine(text: str) -> None:
        compiled.findall(text)
        time.sleep(len(text) ** 2 * 2e-11)  # 5 ms at 16,384 characters, 0.3 ms at 4,096

    assert backtrack.probe_problem(r"\p{N}{1,3}", busy_machine) is None
    assert (
        backtrack.probe_problem(r"(q|qq)+r", lambda text: regex.compile(r"(q|qq)+r").findall(text, timeout=1))
        is not None
    )  # a pattern that truly backtracks is still refused


def test_the_whole_probe_s_limit_is_cpu_time_too(monkeypatch):
    """TOTAL_S counts this thread's CPU time: a run that mostly waits (a machine busy with
    other work) is not refused for the wall time it took, and one that spends the CPU is."""
    monkeypatch.setattr(backtrack, "adversarial_texts", lambda pattern: [("a", "")])
    monkeypatch.setattr(backtrack, "LENGTHS", (8, 16))
    monkeypatch.setattr(backtrack, "FLOOR_S", 1.0)  # no one text is too slow: only the total decides
    monkeypatch.setattr(backtrack, "TOTAL_S", 0.05)

    def waits(text: str) -> None:
        time.sleep(0.02)  # six runs: 0.12 s of wall time, no CPU

    def spends(text: str) -> None:
        end = time.thread_time() + 0.02
        while time.thread_time() < end:
            pass

    assert backtrack.probe_problem("a", waits) is None
    assert backtrack.probe_problem("a", spends) == "probing it took over 0.05 s of CPU time"


def test_one_slow_run_is_timed_again_before_the_probe_says_it_backtracks(monkeypatch):
    """A run that takes the CPU once (a virtual machine's vCPU stopped by its host counts as this
    thread's CPU time; the shipped deepseek_v4 file was once refused so, "12 ms on '#1' x 96") is
    timed again; a run that is slow every time is still refused."""
    monkeypatch.setattr(backtrack, "adversarial_texts", lambda pattern: [("a", "")])
    monkeypatch.setattr(backtrack, "LENGTHS", (8, 16, 32))
    calls = []

    def spend(seconds: float) -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    def once_slow(text: str) -> None:
        calls.append(text)
        spend(0.03 if len(calls) == 4 else 0)  # the first run at length 16: over its limit alone

    assert backtrack.probe_problem("a", once_slow) is None and len(calls) > 3
    assert backtrack.probe_problem("a", lambda text: spend(0.03)).startswith("it takes 3")
