"""Sample texts for the playground and the comparison page, one click away.

Each one shows a reason tokenization matters: numbers are cut into odd chunks, case
changes the tokens, some scripts cost several times more than English, indentation and
emoji eat tokens, a trailing space is a token of its own, a special-token string is plain
text unless you ask for it, and invisible characters hide in plain sight. Written for this
project; keep them short enough to fit in a shareable link.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    key: str
    label: str
    hint: str  # one line: what to look for
    text: str


SAMPLES: tuple[Sample, ...] = (
    Sample(
        "arithmetic",
        "Arithmetic",
        "Numbers split into chunks that do not line up with their digits, so models add column by column blind.",
        "12345 + 67890 = 80235\n"
        "9.11 > 9.9? No: 9.11 < 9.90\n"
        "1000000 vs 1,000,000 vs 1 000 000\n"
        "3.14159265358979 × 2 = 6.28318530717958\n",
    ),
    Sample(
        "case",
        "Mixed case",
        "The same word costs a different number of tokens in each casing; ALL CAPS is the most expensive.",
        "hello Hello HELLO hElLo\n"
        "tokenization Tokenization TOKENIZATION\n"
        "iPhone IPHONE iphone\n"
        "the The THE tHe\n",
    ),
    Sample(
        "scripts",
        "Non-English scripts",
        "The same greeting costs several times more tokens outside English; compare the counts per line.",
        "English: Hello, how are you today?\n"
        "Spanish: Hola, ¿cómo estás hoy?\n"
        "Russian: Привет, как дела сегодня?\n"
        "Greek: Γεια σου, πώς είσαι σήμερα;\n"
        "Korean: 안녕하세요, 오늘 어떻게 지내세요?\n"
        "Japanese: こんにちは、今日の調子はどうですか？\n"
        "Chinese: 你好，你今天怎么样？\n"
        "Hindi: नमस्ते, आज आप कैसे हैं?\n"
        "Arabic: مرحبا، كيف حالك اليوم؟\n"
        "Thai: สวัสดี วันนี้คุณเป็นอย่างไรบ้าง\n",
    ),
    Sample(
        "code",
        "Code indentation",
        "Runs of spaces may merge into one token or cost one token each; tabs behave differently again.",
        "def fizzbuzz(n):\n"
        "    for i in range(1, n + 1):\n"
        "        if i % 15 == 0:\n"
        "            print(\"FizzBuzz\")\n"
        "        elif i % 3 == 0:\n"
        "            print(\"Fizz\")\n"
        "        else:\n"
        "            print(i)\n"
        "\n"
        "build:\n"
        "\tcc -O2 -o app main.c\n",
    ),
    Sample(
        "emoji",
        "Emoji",
        "One emoji can be many tokens: byte pieces of one character are grouped and shown once.",
        "Family 👨‍👩‍👧‍👦 (one emoji, 7 code points)\n"
        "Flags 🇯🇵 🇧🇷 🇫🇷\n"
        "Thumbs 👍 👍🏽 👍🏿\n"
        "Keycap 1️⃣  heart ❤️  rocket 🚀\n",
    ),
    Sample(
        "trailing",
        "Trailing whitespace",
        "A prompt that ends in a space ends in a lonely space token; turn on Show whitespace to see it.",
        "The capital of France is\n"
        "The capital of France is \n"
        "Answer:   \n"
        "\tTabbed line\t\n",
    ),
    Sample(
        "special",
        "Special tokens",
        "Off: <|endoftext|> is plain text, cut into pieces. Turn on Special tokens: one reserved id.",
        "First document.<|endoftext|>Second document.\n<|fim_prefix|>def add(a, b):<|fim_suffix|>",
    ),
    Sample(
        "hidden",
        "Hidden characters",
        "Zero-width, soft-hyphen and bidi-override characters are shown as escapes, never hidden.",
        "zero\u200bwidth space, soft\u00adhyphen, no\u2060break\n"
        "invoice_\u202efdp.exe\u202c (a right-to-left override)\n"
        "\ufeffbyte order mark at the start of this line\n",
    ),
)

BY_KEY = {sample.key: sample for sample in SAMPLES}
DEFAULT_TEXT = (
    "Tokenizers turn text into numbers. Type here to see how!\n"
    "Numbers like 1234567, code like `for i in range(10):`, "
    "emoji 🦄 and other scripts (안녕하세요, Привет) all cut differently.\n"
)
