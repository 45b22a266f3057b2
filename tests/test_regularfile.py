"""cairn.io.regularfile: a regular file only, bounded, never waiting."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cairn.io.regularfile import (
    FileTooLarge,
    NotRegularFile,
    append,
    kind_of,
    open_binary,
    read_bytes,
    read_text,
    size_text,
)
from tests.faults.conftest import within


def test_a_small_file_is_read_whole(tmp_path: Path) -> None:
    file = tmp_path / "f"
    file.write_bytes(b"ref: refs/heads/main\n")
    assert read_bytes(file, 100) == b"ref: refs/heads/main\n"
    assert read_text(file, 21) == "ref: refs/heads/main\n"
    with open_binary(file) as src:
        assert src.read() == b"ref: refs/heads/main\n"


def test_a_fifo_is_refused_at_once_with_or_without_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with within(5):
        for reader in (lambda: read_bytes(fifo, 10), lambda: open_binary(fifo)):
            with pytest.raises(NotRegularFile, match="a FIFO, not a regular file"):
                reader()
        # Appending: no reader makes the open fail (ENXIO); with one, it is refused.
        with pytest.raises(OSError):
            append(fifo, b"x")
        held = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            with pytest.raises(NotRegularFile):
                append(fifo, b"x")
        finally:
            os.close(held)


def test_a_link_to_a_device_is_refused_before_reading(tmp_path: Path) -> None:
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    with within(5), pytest.raises(NotRegularFile, match="a device"):
        read_bytes(link, 1 << 30)


def test_a_folder_and_a_dangling_link(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile, match="a folder"):
        read_bytes(tmp_path, 10)
    (tmp_path / "gone").symlink_to(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError):
        read_bytes(tmp_path / "gone", 10)


def test_a_link_is_followed_unless_told_not_to(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_text(tmp_path / "link", 10) == "x"
    with pytest.raises(NotRegularFile, match="symbolic link"):
        read_text(tmp_path / "link", 10, follow=False)
    with pytest.raises(NotRegularFile, match="symbolic link"):
        append(tmp_path / "link", b"y")
    assert (tmp_path / "real").read_text() == "x"


def test_a_file_over_the_limit_is_refused_or_cut(tmp_path: Path) -> None:
    file = tmp_path / "big"
    with file.open("wb") as out:
        out.truncate(8 << 30)  # sparse: no disk used
    with pytest.raises(FileTooLarge, match="larger than 1 MiB"):
        read_bytes(file, 1 << 20)
    assert read_bytes(file, 10, partial=True) == b"\0" * 10
    file.write_bytes(b"0123456789")
    assert read_bytes(file, 10) == b"0123456789"
    with pytest.raises(FileTooLarge):
        read_bytes(file, 9)


def test_a_proc_file_that_says_it_is_empty_is_still_read_and_bounded() -> None:
    assert b"Name:" in read_bytes("/proc/self/status", 1 << 20)
    with pytest.raises(FileTooLarge):
        read_bytes("/proc/self/status", 10)


def test_append_creates_a_private_file_and_returns_its_size(tmp_path: Path) -> None:
    log = tmp_path / "log"
    assert append(log, b"one\n") == 4
    assert append(log, b"two\n") == 8
    assert log.read_bytes() == b"one\ntwo\n"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_kinds_and_sizes_in_words() -> None:
    assert kind_of(stat.S_IFIFO) == "a FIFO"
    assert kind_of(stat.S_IFCHR) == "a device"
    assert kind_of(stat.S_IFDIR) == "a folder"
    assert size_text(16 << 20) == "16 MiB"
    assert size_text(1000) == "1000 bytes"


def test_an_unreadable_file_raises_the_open_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    file = tmp_path / "secret"
    file.write_text("x")
    file.chmod(0)
    with pytest.raises(PermissionError):
        read_bytes(file, 10)
