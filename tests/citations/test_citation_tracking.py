"""A cited symbol is followed wherever it moves in its file, in each supported language."""

from __future__ import annotations

import json
from typing import Any

import pytest
from citation_git import Repo
from citation_sources import SOURCES, Source, line_of

from cairn.io.citations import SourceRef, check, fingerprint, normalise, parse_source_ref

IDS = [s.language for s in SOURCES]


def _save(repo: Repo, source: Source, symbol: str) -> tuple[SourceRef, dict[str, Any]]:
    repo.write(source.name, source.base())
    repo.commit(f"add {source.name}")
    ref = normalise(parse_source_ref(f"{source.name}#{symbol}"), repo.root, repo.root)
    return ref, json.loads(json.dumps(fingerprint(ref, repo.root)))


def _rewrite(repo: Repo, source: Source, text: str) -> None:
    repo.write(source.name, text)
    repo.commit("edit")


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_fingerprint_records_the_symbol_body(repo: Repo, source: Source) -> None:
    _, fp = _save(repo, source, f"Store.{source.method}")
    assert fp["name_path"] == f"Store.{source.method}"
    assert fp["language"] == source.language
    assert fp["start"] == line_of(source.base(), source.open.split("\n")[0].strip())
    assert len(fp["sha256"]) == 64


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_a_symbol_is_same_after_a_function_is_inserted_above(repo: Repo, source: Source) -> None:
    ref, fp = _save(repo, source, "helper")
    shift = source.added.count("\n")
    _rewrite(repo, source, source.inserted_above())
    result = check(ref, fp, [repo.root])
    assert result.status == "same"
    assert result.lines == (fp["start"] + shift, fp["end"] + shift)
    assert result.note == f"moved from {fp['start']}-{fp['end']}"


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_a_method_is_same_after_it_moves_within_its_type(repo: Repo, source: Source) -> None:
    ref, fp = _save(repo, source, f"Store.{source.method}")
    _rewrite(repo, source, source.methods_swapped())
    result = check(ref, fp, [repo.root])
    assert result.status == "same"
    assert result.lines is not None and result.lines[0] > fp["start"]
    assert result.symbol == f"Store.{source.method}"


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_a_symbol_whose_body_changed_is_changed(repo: Repo, source: Source) -> None:
    ref, fp = _save(repo, source, f"Store.{source.method}")
    _rewrite(repo, source, source.edited())
    result = check(ref, fp, [repo.root])
    assert result.status == "changed"
    assert result.lines == (fp["start"], fp["end"])
    assert "changed" in result.note


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_a_deleted_symbol_is_gone_with_a_note(repo: Repo, source: Source) -> None:
    ref, fp = _save(repo, source, f"Store.{source.method}")
    _rewrite(repo, source, source.without_open())
    result = check(ref, fp, [repo.root])
    assert result.status == "gone"
    assert result.note == f"Store.{source.method} not found in {source.name}"


def test_a_function_moved_into_a_class_is_found_by_name(repo: Repo) -> None:
    repo.write("m.py", "def run(x):\n    return x\n")
    ref = normalise(parse_source_ref("m.py#run"), repo.root, None)
    fp = fingerprint(ref, repo.root)
    repo.write("m.py", "class Job:\n    def run(x):\n        return x\n")
    result = check(ref, fp, [repo.root])
    assert (result.status, result.lines) == ("same", (2, 3))
    assert result.note == "was run; moved from 1-2"


def test_a_renamed_symbol_is_gone(repo: Repo) -> None:
    repo.write("m.go", "package m\n\nfunc Run() {}\n")
    ref = parse_source_ref("m.go#Run")
    fp = fingerprint(ref, repo.root)
    repo.write("m.go", "package m\n\nfunc Start() {}\n")
    assert check(ref, fp, [repo.root]).status == "gone"


def test_java_overloads_match_the_recorded_body(repo: Repo) -> None:
    text = "class A {\n  int m(int a) { return a; }\n  int m(String s) { return 1; }\n}\n"
    repo.write("A.java", text)
    ref = parse_source_ref("A.java#A.m")
    fp = fingerprint(ref, repo.root)
    assert fp["start"] == 2
    repo.write("A.java", text.replace("return 1", "return 2"))
    assert check(ref, fp, [repo.root]).status == "same"
    repo.write("A.java", text.replace("return a", "return -a"))
    assert check(ref, fp, [repo.root]).status == "changed"
