"""The chat formats: each turns messages (and tools) into one model family's prompt ids."""
