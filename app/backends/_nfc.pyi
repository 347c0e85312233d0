"""Types of the C extension app/backends/_nfc.c (NFC where it can change).

Written from the C source's argument parsing and return values; mypy reads this, Python never does.
"""

UNIDATA_VERSION: str

def nfc(text: str, /) -> str: ...
