"""Doc pages and export/import through `Store`."""

from __future__ import annotations

from collections.abc import Callable

from cairn.core.text import analyse_text
from cairn.io.store.protocol import Store
from cairn.usecases.remember import folded_sentence, index_text
from tests.store_contract.conftest import memory, put


def _page(heading: str, text: str) -> tuple[str, str, str, str, bool]:
    return (heading, text, analyse_text(heading), analyse_text(text), False)


def test_doc_pages_are_found_by_their_words(store: Store) -> None:
    pages = [_page("Deploy", "deploys need approval"), _page("Build", "builds use make")]
    store.replace_doc_file("/p", "docs/ops.md", "h1", pages, "sig")
    assert store.doc_file_hash("/p", "docs/ops.md") == "h1"
    assert store.doc_paths("/p") == ["docs/ops.md"]
    assert store.doc_signatures("/p") == {"docs/ops.md": "sig"}
    word = analyse_text("approval")
    ids = store.doc_candidates([word], 10)
    assert len(ids) == 1
    page, _, body = store.docs_by_ids(ids)[ids[0]]
    assert (page.heading, page.path, page.text) == ("Deploy", "docs/ops.md", pages[0][1])
    assert word in body.split()
    assert store.doc_freqs([word, "zzz"]) == {word: 1, "zzz": 0}
    assert store.index_stats("docs")[0] == 2
    store.set_doc_signature("/p", "docs/ops.md", "sig2")
    assert store.doc_signatures("/p") == {"docs/ops.md": "sig2"}
    store.replace_doc_file("/p", "docs/ops.md", None, [])
    assert store.doc_paths("/p") == [] and store.doc_candidates([word], 10) == []
    assert store.index_stats("docs") == (0, 0)


def test_a_dump_loads_into_another_store(open_store: Callable[[], Store]) -> None:
    source, target = open_store(), open_store()
    put(source, memory("m-000001", "one", tags=("a",)))
    records = [r for r in source.dump() if r["type"] == "memory"]
    for record in records:
        body = {k: v for k, v in record.items() if k != "type"}
        m = memory(body["ref"], body["text"])
        index = index_text(m.text, tuple(body["tags"]), body["source_ref"], body["reason"])
        assert target.load_memory(body, folded_sentence(m.text), index)
        assert not target.load_memory(body, folded_sentence(m.text), index)
    assert target.get_memory("m-000001") == source.get_memory("m-000001")


def test_a_copy_that_differs_does_not_verify(open_store: Callable[[], Store]) -> None:
    from cairn.usecases.transfer.copying import _differences

    source, target = open_store(), open_store()
    put(source, memory("m-000001", "one"))
    assert _differences(source, target) == [
        "1 memories rows in the source, 0 in the copy",
        "1 memory_counts rows in the source, 0 in the copy",
        "m-000001 differs",
    ]
    put(target, memory("m-000001", "one"))
    assert _differences(source, target) == []
    target.touch(["m-000001"], "2026-11-05T00:00:00.000000Z")
    assert _differences(source, target) == ["m-000001 differs"]
