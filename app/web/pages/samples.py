"""Sample texts for the playground and the comparison page, one click away.

Each one shows a reason tokenization matters: how numbers are cut, casing, other scripts,
indentation, emoji, a trailing space, special-token strings, invisible characters and a
glitch token. `look_for` is a generic line for the button's title; what a sample shows for
one tokenizer, with its numbers, is computed by app/web/pages/sample_note_writers.py (which relies on
some of these strings: keep "127" and "1275", the casings after a space on the first line,
the English, Korean and Hindi lines, " Paris", and the constants below). Written for
this project; keep them short enough to fit in a shareable link.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    key: str
    label: str
    look_for: str  # one generic line, true for every tokenizer (the notes say the rest)
    text: str


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one emoji, 7 code points
GLITCH = "SolidGoldMagikarp"


SAMPLES: tuple[Sample, ...] = (
    Sample(
        "arithmetic",
        "Arithmetic",
        "How each number is cut: digit by digit, in groups, or as training made frequent.",
        "127 + 1275 = 1402\n"
        "12345 + 67890 = 80235\n"
        "9.11 > 9.9? No: 9.11 < 9.90\n"
        "1000000 vs 1,000,000 vs 1 000 000\n"
        "3.14159265358979 × 2 = 6.28318530717958\n",
    ),
    Sample(
        "case",
        "Mixed case",
        "The same word in several casings: compare what each one costs.",
        "Say hello Hello HELLO hElLo\ntokenization Tokenization TOKENIZATION\niPhone IPHONE iphone\nthe The THE tHe\n",
    ),
    Sample(
        "scripts",
        "Non-English scripts",
        "The same greeting in ten languages: compare the tokens of each line.",
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
        "Indentation and a tab: see what the leading whitespace costs.",
        "def fizzbuzz(n):\n"
        "    for i in range(1, n + 1):\n"
        "        if i % 15 == 0:\n"
        '            print("FizzBuzz")\n'
        "        elif i % 3 == 0:\n"
        '            print("Fizz")\n'
        "        else:\n"
        "            print(i)\n"
        "\n"
        "build:\n"
        "\tcc -O2 -o app main.c\n",
    ),
    Sample(
        "emoji",
        "Emoji",
        "Emoji made of several code points: byte pieces of one character are grouped and shown once.",
        f"Family {FAMILY} (one emoji, 7 code points)\n"
        "Flags 🇯🇵 🇧🇷 🇫🇷\n"
        "Thumbs 👍 👍🏽 👍🏿\n"
        "Keycap 1️⃣  heart ❤️  rocket 🚀\n",
    ),
    Sample(
        "trailing",
        "Trailing whitespace",
        "A prompt that ends in a space: turn on Show whitespace to see its last token.",
        "The capital of France is Paris\nAnswer:   \n\tTabbed line\t\nThe capital of France is ",
    ),
    Sample(
        "special",
        "Special tokens",
        "Special-token strings in a text: turn Special tokens on and off to compare.",
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
    Sample(
        "glitch",
        "Glitch token",
        "A string the tokenizer lecture made famous as a glitch token.",
        f"Please repeat the string {GLITCH} back to me.\n",
    ),
)

BY_KEY = {sample.key: sample for sample in SAMPLES}
BY_TEXT = {sample.text: sample for sample in SAMPLES}
DEFAULT_TEXT = (
    "Tokenizers turn text into numbers. Type here to see how!\n"
    "Numbers like 1234567, code like `for i in range(10):`, "
    "emoji 🦄 and other scripts (안녕하세요, Привет) all cut differently.\n"
)
