"""Reading a .tiktoken file: the one-pass read gives what the line-by-line reading gives (the
shipped files, files with blank lines, CRLF ends, loose padding), and a bad line is named."""

from __future__ import annotations

import base64

import pytest

from app.errors import TokenizerFileError
from app.tokenizers.storage.files import parse_tiktoken_ranks, read_verified
from tests.reference import TOKENIZER_DIR


def line_by_line(data: bytes) -> dict[bytes, int]:
    """The reading the one-pass read must equal: b64decode(validate=True) a line."""
    ranks = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
    return ranks


@pytest.mark.parametrize("name", ["cl100k_base.tiktoken.gz", "o200k_base.tiktoken.gz", "r50k_base.tiktoken.gz"])
def test_shipped_files_read_as_line_by_line(name):
    data = read_verified(name, TOKENIZER_DIR)
    assert parse_tiktoken_ranks(data, name) == line_by_line(data)


@pytest.mark.parametrize(
    "data",
    [
        b"QQ== 0\nQg== 1\n",
        b"QQ== 0\n\nQg== 1\n\n",  # blank lines
        b"QQ== 0\r\nQg== 1\r\n",  # CRLF
        b"QUJD= 0\nQg== 1",  # padding strict base64 refuses but validate=True takes
        b"QQ==\t0\nQg==  1",  # other white space between the fields
        b"QQ== 0\nQQ== 1\n",  # a token twice: the last rank wins, as in a dict
        b"",
    ],
)
def test_files_either_reading_takes_read_the_same(data):
    assert parse_tiktoken_ranks(data, "f") == line_by_line(data)


@pytest.mark.parametrize(
    ("data", "line"),
    [(b"QQ== 0\nQg==\n", 2), (b"QQ== 0\nQg== 1 2\n", 2), (b"QQ== 0\nQQ 1\n", 2), (b"Q!== 0\n", 1), (b"QQ== x\n", 1)],
)
def test_a_bad_line_is_named(data, line):
    with pytest.raises(TokenizerFileError, match=rf"f line {line} is not 'base64 rank'"):
        parse_tiktoken_ranks(data, "f")
