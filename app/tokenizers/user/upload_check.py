"""The child process that loads and tests a user's tokenizer file for `uploads.check`.

Reads one JSON request on stdin ({path, kind, name, description, pattern, special_tokens,
memory, cpu, max_vocab}), limits its own address space and CPU time before touching the
file, and answers user regexes itself (app/sandbox `run_inline`: it is a sandbox already).
For a Hugging Face file it first refuses JSON that is not a tokenizer.json (no "model": a
config.json, say) by that name, counts the vocabulary from the JSON and checks every
regex the file brings (normalizer and decoder `Replace`, pre-tokenizer `Split`, through
`Sequence`s): a shape known to backtrack, or a probe on adversarial text through the
library's own engine (app/sandbox/backtrack.py), refuses it; the regexes of our built-in
deepseek_v4 file (`known_regexes`, run by the same library; tests/sandbox/test_regex_bounds.py
probes them) are not probed again: a file with DeepSeek's pre-tokenizer (a fine-tune's, the
same file with another chat template) is checked in 3 s instead of 9. Then it builds the
tokenizer, refuses a vocabulary over `max_vocab`, tokenizes PROBE_TEXT and checks that the
tokens' bytes join to the text's UTF-8 and that every id decodes. Prints one JSON line:
{"vocab_size", "description", "probe_tokens"} on success, or {"error": "..."} (exit 2)
naming what is wrong with the file. A crash, a kill or running out of limits shows in the
exit status, which the parent turns into a refusal.
"""

from __future__ import annotations

import json
import resource
import sys


def main() -> int:
    request = json.loads(sys.stdin.read())
    resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
    resource.setrlimit(resource.RLIMIT_CPU, (request["cpu"], request["cpu"]))
    from app.bpe.split import PROBE_TEXT
    from app.errors import TokenprismError
    from app.sandbox.runner import run_inline
    from app.tokenizers.user.uploads import build, vocab_refusal

    run_inline()
    try:
        with open(request["path"], "rb") as handle:
            data = handle.read()
        if request["kind"] == "huggingface":
            check_huggingface(data, request["max_vocab"])
        tokenizer = build(
            request["kind"],
            data,
            request["name"],
            request["description"],
            request["pattern"],
            request["special_tokens"],
        )
        if tokenizer.vocab_size > request["max_vocab"]:
            raise vocab_refusal(tokenizer.vocab_size, request["max_vocab"])
        tokens = tokenizer.tokenize(PROBE_TEXT)
        if b"".join(token.bytes for token in tokens) != PROBE_TEXT.encode("utf-8"):
            raise ValueError("its tokens do not spell a test text back")
        tokenizer.decode([token.id for token in tokens])
    except MemoryError:
        print(json.dumps({"error": "the file needs more memory to load than a tokenizer may use; it is refused"}))
        return 2
    except TokenprismError as error:
        print(json.dumps({"error": f"the file is refused: {error.message}"}))
        return 2
    except BaseException as error:  # a parser's own exception (pyo3 panics too): the file is bad
        shown = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        print(json.dumps({"error": f"the file is not a usable {request['kind']} tokenizer: {shown}"}))
        return 2
    print(
        json.dumps(
            {"vocab_size": tokenizer.vocab_size, "description": tokenizer.description, "probe_tokens": len(tokens)}
        )
    )
    return 0


def check_huggingface(data: bytes, max_vocab: int) -> None:
    """Before the library builds anything: the vocabulary's size, and every regex the file brings."""
    from app.errors import InvalidInput, excerpt
    from app.sandbox.backtrack import probe_problem, shape_problem
    from app.tokenizers.user.uploads import vocab_refusal
    from tokenizers import Regex, pre_tokenizers

    try:
        config = json.loads(data)
    except (ValueError, RecursionError):
        return  # the library's own error names the problem (see huggingface.backend._load)
    if not isinstance(config, dict) or "model" not in config:  # JSON, but some other file (a config.json...)
        kinds: dict[type, str] = {dict: "object", list: "array", str: "string"}
        what = kinds.get(type(config), "value")
        raise InvalidInput(
            f'it is a JSON {what}, but not a Hugging Face tokenizer.json (it has no "model"); '
            'upload the model\'s tokenizer.json, the file whose "model" holds the vocabulary and merges'
        )
    model = config["model"] if isinstance(config["model"], dict) else {}
    vocab, added = model.get("vocab"), config.get("added_tokens")
    entries = (len(vocab) if isinstance(vocab, (dict, list)) else 0) + (len(added) if isinstance(added, list) else 0)
    if entries > max_vocab:
        raise vocab_refusal(entries, max_vocab)
    known = known_regexes()
    for where, pattern in file_regexes(config):
        if pattern in known:
            continue
        problem = shape_problem(pattern)
        if problem is None:
            try:
                split = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
            except BaseException:  # not valid for the library: its own error names it at build
                continue
            problem = probe_problem(pattern, split.pre_tokenize_str)
        if problem:
            raise InvalidInput(
                f"the {where} regex {excerpt(pattern)} would stop the server on some texts: {problem}; "
                "use a pattern without nested or overlapping repeats (such as GPT-2's or GPT-4's)",
                code="regex_slow",
            )


def known_regexes() -> set[str]:
    """The regexes of the built-in deepseek_v4's pre-tokenizer (its three Splits)."""
    from app.backends.huggingface.cuts import PROVEN_REGEXES

    return set(PROVEN_REGEXES)


def file_regexes(config: dict) -> list[tuple[str, str]]:
    """(where, pattern) for every regex in a tokenizer.json's normalizer, pre-tokenizer and decoder."""
    found = []

    def walk(node, where: str) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, where)
        elif isinstance(node, dict):
            pattern = node.get("pattern")
            if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
                found.append((f"{where} {node.get('type', '')}".strip(), pattern["Regex"]))
            for key, value in node.items():
                if key != "pattern":
                    walk(value, where)

    for part in ("normalizer", "pre_tokenizer", "decoder"):
        walk(config.get(part), part.replace("_", "-"))
    return found


if __name__ == "__main__":
    sys.exit(main())
