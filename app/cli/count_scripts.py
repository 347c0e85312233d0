"""`tokenprism count --by script FILES`: tokens per character by Unicode script, per tokenizer.

Reads the corpus's documents (as `count` does: text files, .jsonl, .parquet, directories) one
after another in this process, and adds up characters and tokens per script with
`app.tokenizers.lecture.scripts.ScriptTally` (its docstring says which script a token counts for), so
each tokenizer's column sums to its token count and the characters to the corpus's. Leaves
out: --workers and --dask (the split needs every token's character range, which the
counting workers do not send back), and --model.
"""

from __future__ import annotations

from app.corpus.problems import Problems
from app.corpus.readers import documents
from app.corpus.sources import Plan
from app.errors import TokenprismError
from app.tokenizers.lecture.scripts import ScriptTally, token_ranges
from app.tokenizers.registry import Registry


def tally_plan(plan: Plan, names: list[str], registry: Registry, allow_special: bool = False) -> ScriptTally:
    """Every document of `plan` split by script under each tokenizer; what cannot be read or
    is refused goes to `plan.problems`."""
    tokenizers = [registry.get(name) for name in names]
    tally = ScriptTally(names)
    problems: Problems = plan.problems
    for task in plan.tasks():
        for part in task.parts:
            for text, size in documents(part, plan.options, problems):
                try:
                    ranges = {
                        t.name: token_ranges(t, text, t.encode(text, allow_special), allow_special) for t in tokenizers
                    }
                except TokenprismError as error:
                    problems.record(
                        part.source.index,
                        -1,
                        f"{part.source.shown}: a document of {size:,} bytes was refused ({error.message}); skipped",
                    )
                    continue
                tally.add(text, ranges)
    return tally


def table(tally: ScriptTally) -> tuple[list[str], list[list[str]]]:
    """The header and rows `print_table` prints: per script its characters, then per tokenizer
    its tokens and tokens per character; a TOTAL row last."""
    header = ["SCRIPT", "CHARACTERS"]
    for name in tally.names:
        header += [name, "TOKENS/CHAR"]
    rows = []
    for row in tally.rows():
        cells = [row["script"], f"{row['characters']:,}"]
        for name in tally.names:
            cells += [f"{row['tokens'][name]:,}", f"{row['tokens_per_character'][name]:.3f}"]
        rows.append(cells)
    characters = sum(tally.characters.values())
    total = ["TOTAL", f"{characters:,}"]
    for name in tally.names:
        tokens = sum(tally.tokens.get(name, {}).values())
        total += [f"{tokens:,}", f"{tokens / characters:.3f}" if characters else "-"]
    return header, [*rows, total]


def as_json(tally: ScriptTally) -> dict:
    characters = sum(tally.characters.values())
    return {
        "tokenizers": tally.names,
        "characters": characters,
        "tokens": {name: sum(tally.tokens.get(name, {}).values()) for name in tally.names},
        "by_script": tally.rows(),
    }
