"""Lock files of names (issue 18, point 10): DELETE of an unknown name leaves no lock file
(nor a folder), and a name's lock file exists only while its lock is held."""

from __future__ import annotations

import pytest

from app.errors import TokenprismError
from app.tokenizers.user import uploads
from app.tokenizers.user.user_models import name_lock
from tests.reference import TOKENIZER_DIR


def test_deleting_an_unknown_name_leaves_nothing(client, settings):
    folder = settings.user_tokenizer_dir
    before = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    response = client.delete("/api/tokenizers/never-there")
    assert response.status_code == 404
    after = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert after == before and ".never-there.lock" not in after


def test_remove_makes_no_folder_and_cleans_its_lock(tmp_path):
    folder = tmp_path / "tokenizers"
    assert uploads.remove(folder, "nothing") is False and not folder.exists()
    folder.mkdir()
    (folder / "mine.bpe").write_bytes((TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())
    assert uploads.remove(folder, "mine") is True
    assert list(folder.iterdir()) == []


def test_a_lock_file_lives_while_held(tmp_path):
    with name_lock(tmp_path, "busy"):
        assert (tmp_path / ".busy.lock").exists()
        with pytest.raises(TokenprismError) as caught, name_lock(tmp_path, "busy"):
            pass
        assert caught.value.code == "name_busy" and (tmp_path / ".busy.lock").exists()
    assert not (tmp_path / ".busy.lock").exists()
    with name_lock(tmp_path, "busy"):  # and can be taken again
        pass
    assert list(tmp_path.iterdir()) == []
