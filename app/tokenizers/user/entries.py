"""The registry's entry for a usable user file (a `.bpe` trained here or a NAME.tokenizer
added with uploads.py): its facts from the file's header, a factory that builds it, and
whether the file changed since it was listed. Leaves listing the folder to `user_models`
and caching, budgets and names to the registry.
"""

from __future__ import annotations

from app.bpe.model import BPETokenizer
from app.chat.formats.template_files import from_facts
from app.tokenizers.base import Tokenizer
from app.tokenizers.entry import Entry
from app.tokenizers.user import uploads
from app.tokenizers.user.user_models import UserModel, identity_of


def file_changed(entry: Entry) -> bool:
    """Whether a user entry's file is no longer the one it was listed from."""
    return entry.path is None or identity_of(entry.path) != entry.version


def user_entry(model: UserModel) -> Entry:
    def build() -> Tokenizer:
        if model.added:  # NAME.tokenizer, checked when it was added (uploads.py)
            facts, data = uploads.read_stored(model.path)
            tokenizer = uploads.build(
                facts.kind, data, model.name, facts.description, facts.pattern, facts.special_tokens
            )
            if facts.chat_template is not None:
                tokenizer.chat_template = from_facts(facts.chat_template)
            return tokenizer
        return BPETokenizer.load(model.path, name=model.name)

    header = model.header
    assert header is not None  # listed entries are of usable files, which have a header
    return Entry(
        model.name,
        model.kind,
        header.vocab_size,
        header.description,
        build,
        version=model.identity,
        user=True,
        path=model.path,
        chat_template=getattr(model.facts, "chat_template", None) is not None,
    )
