"""Tokenizer files on disk: reading and checking them, the shipped MANIFEST, package copies."""
