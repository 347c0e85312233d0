"""A stand-in for app.tokenizers.user.upload_check that crashes as a broken native parser would:
it reads its request, then dies of a segmentation fault (tests/tokenizers/test_uploads.py)."""

import ctypes
import sys

sys.stdin.read()
ctypes.string_at(0)  # reads address 0: SIGSEGV
