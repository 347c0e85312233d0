"""The child process that loads and tests a user's tokenizer file for `uploads.check`.

Reads one JSON request on stdin ({path, kind, name, description, pattern, special_tokens,
memory, cpu}), limits its own address space and CPU time before touching the file, builds
the tokenizer, tokenizes PROBE_TEXT and checks that the tokens' bytes join to the text's
UTF-8 and that every id decodes. Prints one JSON line: {"vocab_size", "description",
"probe_tokens"} on success, or {"error": "..."} (exit 2) naming what is wrong with the
file. A crash, a kill or running out of limits shows in the exit status, which the parent
turns into a refusal.
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
    from app.tokenizers.uploads import build

    try:
        with open(request["path"], "rb") as handle:
            data = handle.read()
        tokenizer = build(request["kind"], data, request["name"], request["description"],
                          request["pattern"], request["special_tokens"])
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
    print(json.dumps({"vocab_size": tokenizer.vocab_size, "description": tokenizer.description,
                      "probe_tokens": len(tokens)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
