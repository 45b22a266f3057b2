"""Reading the arrays recall keeps beside the store without reading them whole.

`numpy.load` of a kept `.npz` file (`recall-postings.npz`, `recall-lsa.npz`) reads and copies
every array and checks each member's CRC: at 100k memories that was most of a new process's
first recall (~0.2 s of postings, ~0.6 s of LSA), though one query touches a few thousand
postings and a few hundred document vectors. `read_npz` maps the file instead and returns
arrays that are views of the mapping: the operating system reads the pages a query touches,
and a second process finds them in its page cache.

`numpy.savez` writes each array uncompressed (ZIP_STORED) as a `.npy` member, so an array is a
run of bytes at a known offset: the zip's central directory (and its zip64 extra fields) gives
each member's offset and size, its local header the start of its data, the `.npy` header the
dtype and shape. Anything else (a compressed member, an object array, a member running past
the end of the file, a damaged directory) makes the whole file unreadable: None, and the
caller computes afresh, as it does for a missing file.

The mapping lives as long as an array made from it. Cairn never writes into a kept file: it
writes a new one and renames it into place, so a mapped file never changes under a reader.

Also here, the loaded forms of the kept arrays that are cheap to make: `Vocabulary` (a term's
id, found in the terms array without building a dict of them all), `RowIndex` (a rowid's
position) and `Strings` (refs as `str`, converted when asked).
"""

from __future__ import annotations

import mmap
import os
import re
import stat
import struct
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, ClassVar

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Raw", "RowIndex", "Strings", "Vocabulary", "raw_npz", "read_npz", "write_npz"]

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_NPY_MAGIC = b"\x93NUMPY"
_MAX_COMMENT = 0xFFFF
_MAX_MEMBERS = 64
_MAX_HEADER = 1 << 16
# The header `numpy.save` writes for a plain dtype (`numpy.lib.format`: the dict's repr, keys
# sorted, then spaces and a newline). Read without `ast`, ~2 ms of a new recall process's
# imports; any other header (a structured dtype's list descr, another spelling) is read by
# `ast.literal_eval`, as every header was before.
_PLAIN_HEADER = re.compile(
    r"\{'descr': '([^'\\]*)', 'fortran_order': (True|False), "
    r"'shape': \(((?:\d+, )*\d+,?|)\), \} *\n?"
)
ALIGN = 64  # the `.npy` format pads its header to this; members start on it too
_PAD_TAG = 0xCA1E  # an extra field that only pads (readers skip tags they do not know)


class Damaged(ValueError):
    """The file is not an npz file `read_npz` can map."""


def read_npz(path: str | os.PathLike[str]) -> dict[str, NDArray[Any]] | None:
    """The arrays of an uncompressed `.npz` file, as views of its mapping; None when the file
    is missing, not a regular file, or not one `numpy.savez` wrote (module docstring)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        view = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # an empty file cannot be mapped
        return None
    finally:
        os.close(fd)
    try:
        return {name: _array(view, start, size) for name, start, size in _members(view)}
    except (Damaged, ValueError, SyntaxError, TypeError, IndexError, struct.error):
        return None


def raw_npz(path: str | os.PathLike[str], only: str | None = None) -> dict[str, Raw] | None:
    """The arrays of an npz file as `Raw` views of its mapping, read with the standard
    library only (no numpy): what a new process's first recall reads (`recall.lean`); with
    `only`, that array alone (its header is the only one read). None where `read_npz` gives
    None, and for arrays stored in another byte order."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        view = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    try:
        return {
            name: _raw(view, start, size)
            for name, start, size in _members(view)
            if only is None or name == only
        }
    except (Damaged, ValueError, SyntaxError, TypeError, IndexError, struct.error):
        return None


class Raw:
    """One `.npy` member as bytes of the mapping: its dtype's descr, its shape, its data.

    `items()` reads it as Python numbers (a `memoryview` cast, no copy) and `strings()` a
    strings array as `str`; both need a little-endian machine and array (`raw_npz` checks).
    """

    __slots__ = ("data", "descr", "fortran", "shape")

    _CODES: ClassVar[dict[str, str]] = {
        "<i8": "q",
        "<i4": "i",
        "<f8": "d",
        "<f4": "f",
        "|u1": "B",
        "<u4": "I",
        "|b1": "?",
    }

    def __init__(
        self, descr: str, shape: tuple[int, ...], data: memoryview, fortran: bool = False
    ) -> None:
        self.descr = descr
        self.shape = shape
        self.data = data
        self.fortran = fortran  # of a 2-d array: item (i, j) is at j * rows + i, else i * cols + j

    def items(self) -> Any:
        """The values, flat, as a memoryview of Python ints, floats or bools."""
        code = self._CODES.get(self.descr)
        if code is None:
            raise Damaged(f"not a number array: {self.descr}")
        return self.data.cast(code)  # type: ignore[call-overload]

    @property
    def width(self) -> int:
        """Characters per item of a strings array (`<U<width>`)."""
        if not self.descr.startswith("<U"):
            raise Damaged(f"not a strings array: {self.descr}")
        return int(self.descr[2:])

    def string(self, k: int) -> str:
        """Item k of a strings array (UTF-32, padded with NULs)."""
        size = 4 * self.width
        return str(self.data[k * size : (k + 1) * size], "utf-32-le").rstrip("\0")

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 1


def _raw(view: mmap.mmap, start: int, size: int) -> Raw:
    """The `.npy` member at `start` (`size` bytes) as a `Raw` view of the mapping."""
    descr, fortran, shape, data, itemsize = _header(view, start, size, _raw_itemsize)
    if len(shape) > 2:
        raise Damaged("an array of more than two dimensions")
    count = 1
    for n in shape:
        count *= n
    return Raw(descr, shape, memoryview(view)[data : data + count * itemsize], fortran)


def _raw_itemsize(descr: Any) -> int:
    """Bytes per item of a little-endian (or byte) descr the stdlib reader knows."""
    if not isinstance(descr, str) or sys.byteorder != "little":
        raise Damaged("not a simple little-endian dtype")
    if descr.startswith("<U"):
        return 4 * int(descr[2:])
    sizes = {"<i8": 8, "<i4": 4, "<f8": 8, "<f4": 4, "|u1": 1, "<u4": 4, "|b1": 1}
    if descr not in sizes:
        raise Damaged(f"dtype {descr!r}")
    return sizes[descr]


def write_npz(out: BinaryIO, arrays: Mapping[str, Any]) -> None:
    """Write `arrays` as `numpy.savez` does (an uncompressed zip of `.npy` members, which
    `numpy.load` reads), with each member's data starting on an ALIGN-byte boundary of the
    file: an array mapped from it is aligned, which numpy needs to work on it in place (on an
    unaligned one, a binary search of the terms costs ~150 us instead of ~2 us)."""
    import io
    import zipfile

    import numpy as np

    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, value in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(value), allow_pickle=False)
            data = buffer.getvalue()
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            # The local header (30 bytes, the name, the extra field) starts where the last
            # member ended; the extra field's length makes the data start aligned.
            fixed = zf.start_dir + 30 + len(info.filename.encode()) + 4
            pad = -fixed % ALIGN
            info.extra = struct.pack("<HH", _PAD_TAG, pad) + bytes(pad)
            zf.writestr(info, data)


def _members(view: mmap.mmap) -> list[tuple[str, int, int]]:
    """(array name, data start, data size) of each member, from the central directory."""
    size = len(view)
    at = view.rfind(_EOCD, max(0, size - 22 - _MAX_COMMENT))
    if at < 0 or at + 22 > size:
        raise Damaged("no end of central directory")
    count, dir_size, dir_start = struct.unpack_from("<HII", view, at + 10)
    if 0xFFFFFFFF in (dir_size, dir_start) or count == 0xFFFF:
        locator = at - 20
        if locator < 0 or view[locator : locator + 4] != _EOCD64_LOCATOR:
            raise Damaged("no zip64 locator")
        (end64,) = struct.unpack_from("<Q", view, locator + 8)
        if view[end64 : end64 + 4] != _EOCD64:
            raise Damaged("no zip64 end of central directory")
        count, dir_size, dir_start = struct.unpack_from("<QQQ", view, end64 + 32)
    if count > _MAX_MEMBERS or dir_start + dir_size > size:
        raise Damaged("central directory out of bounds")
    members: list[tuple[str, int, int]] = []
    at = dir_start
    for _ in range(count):
        if view[at : at + 4] != _CENTRAL:
            raise Damaged("bad central directory entry")
        method, packed, plain = struct.unpack_from("<H8xII", view, at + 10)
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", view, at + 28)
        (offset,) = struct.unpack_from("<I", view, at + 42)
        name = bytes(view[at + 46 : at + 46 + name_len]).decode("utf-8")
        extra = bytes(view[at + 46 + name_len : at + 46 + name_len + extra_len])
        plain, packed, offset = _zip64(extra, plain, packed, offset)
        if method != 0 or packed != plain or not name.endswith(".npy"):
            raise Damaged(f"member {name!r} is compressed or not an array")
        if view[offset : offset + 4] != _LOCAL:
            raise Damaged("bad local header")
        local_name, local_extra = struct.unpack_from("<HH", view, offset + 26)
        start = offset + 30 + local_name + local_extra
        if start + packed > size:
            raise Damaged(f"member {name!r} runs past the end of the file")
        members.append((name[: -len(".npy")], start, packed))
        at += 46 + name_len + extra_len + comment_len
    return members


def _zip64(extra: bytes, plain: int, packed: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset from a zip64 extra field, where the fixed fields say 0xFFFFFFFF."""
    at = 0
    while at + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, at)
        if tag == 0x0001:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, at + 4))
            if plain == 0xFFFFFFFF:
                plain = next(values)
            if packed == 0xFFFFFFFF:
                packed = next(values)
            if offset == 0xFFFFFFFF:
                offset = next(values)
        at += 4 + length
    return plain, packed, offset


def _header(
    view: mmap.mmap, start: int, size: int, itemsize_of: Any
) -> tuple[Any, bool, tuple[int, ...], int, int]:
    """(descr, fortran order, shape, data start, item size) of the `.npy` member at `start`;
    `itemsize_of(descr)` gives the item size (and refuses a descr it cannot read)."""
    if view[start : start + 6] != _NPY_MAGIC:
        raise Damaged("not a .npy member")
    major = view[start + 6]
    if major == 1:
        (header_len,) = struct.unpack_from("<H", view, start + 8)
        header_start = start + 10
    elif major in (2, 3):
        (header_len,) = struct.unpack_from("<I", view, start + 8)
        header_start = start + 12
    else:
        raise Damaged(f".npy version {major}")
    if header_len > _MAX_HEADER:
        raise Damaged(".npy header too long")
    header = bytes(view[header_start : header_start + header_len]).decode("latin1")
    fields = _header_fields(header)
    if not isinstance(fields, dict) or set(fields) != {"descr", "fortran_order", "shape"}:
        raise Damaged("bad .npy header")
    shape = tuple(int(n) for n in fields["shape"])
    if any(n < 0 for n in shape):
        raise Damaged("a negative dimension")
    itemsize = itemsize_of(fields["descr"])
    count = 1
    for n in shape:
        count *= n
    data = header_start + header_len
    if data + count * itemsize > start + size:
        raise Damaged("array runs past its member")
    return fields["descr"], bool(fields["fortran_order"]), shape, data, itemsize


def _header_fields(header: str) -> Any:
    """The `.npy` header's dict: numpy's plain form read by `_PLAIN_HEADER`, any other by
    `ast.literal_eval` (whose errors the readers take as a damaged file)."""
    plain = _PLAIN_HEADER.fullmatch(header)
    if plain is None:
        import ast

        return ast.literal_eval(header)
    descr, fortran, shape = plain.groups()
    return {
        "descr": descr,
        "fortran_order": fortran == "True",
        "shape": tuple(int(n) for n in shape.replace(",", " ").split()),
    }


def _array(view: mmap.mmap, start: int, size: int) -> NDArray[Any]:
    """The `.npy` array at `start` (`size` bytes), a view of the mapping."""
    import numpy as np

    def itemsize_of(descr: Any) -> int:
        dtype = np.dtype(np.lib.format.descr_to_dtype(descr))
        if dtype.hasobject:
            raise Damaged("an object array (pickled): never read")
        return int(dtype.itemsize)

    descr, fortran, shape, data, _ = _header(view, start, size, itemsize_of)
    dtype = np.dtype(np.lib.format.descr_to_dtype(descr))
    count = 1
    for n in shape:
        count *= n
    flat = np.frombuffer(view, dtype=dtype, count=count, offset=data)
    if not flat.flags.aligned:
        flat = flat.copy()  # a file `write_npz` did not write (numpy.savez's): read it all
    return flat.reshape(shape, order="F" if fortran else "C")


class Vocabulary(Mapping[str, int]):
    """Term -> id over a terms array (a term's id is its position), without a dict up front.

    A sorted array is searched (a binary search per term, the answers for up to KEPT terms
    kept); another is compared whole per term, and once LOOKUPS terms were asked a dict is
    built, as a long-lived process asks many. A sorted array is made a dict too once the
    binary searches have cost about what the dict does (`dict_after`: one term in
    SEARCH_PER_TERM of the array asked): a new process asking a few terms makes none, a
    long-lived one pays at most about twice what a dict from the start would have cost.
    """

    LOOKUPS = 32
    KEPT = 4096
    SEARCH_PER_TERM = 32  # a binary search costs about what putting 32 terms in a dict does

    def __init__(self, terms: NDArray[Any]) -> None:
        import numpy as np

        self.terms = terms
        n = int(terms.shape[0])
        self.sorted = n < 2 or bool(np.all(terms[1:] > terms[:-1]))
        self._dict: dict[str, int] | None = None
        self._asked: dict[str, int] = {}
        self._lookups = 0
        self.dict_after = max(self.LOOKUPS, n // self.SEARCH_PER_TERM)

    def get(self, term: str, default: Any = None) -> Any:
        """The id of `term`, or `default`."""
        found = self._find(term)
        return default if found < 0 else found

    def __getitem__(self, term: str) -> int:
        found = self._find(term)
        if found < 0:
            raise KeyError(term)
        return found

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self._find(term) >= 0

    def __len__(self) -> int:
        return int(self.terms.shape[0])

    def __iter__(self) -> Iterator[str]:
        return iter(self.terms.tolist())

    def _make_dict(self) -> None:
        """Term -> id as a dict (the first of a repeated term), and `get` that dict's."""
        found = {t: k for k, t in reversed(list(enumerate(self.terms.tolist())))}
        self._dict = found
        self.get = found.get  # type: ignore[method-assign, assignment]

    def _find(self, term: str) -> int:
        import numpy as np

        if self._dict is not None:
            return self._dict.get(term, -1)
        known = self._asked.get(term)
        if known is not None:
            return known
        if self.sorted:
            self._lookups += 1
            if self._lookups >= self.dict_after:
                # A long-lived process (LSA folds every candidate's words in): one dict, and
                # `get` is its own from now on, with no Python call in between.
                self._make_dict()
                return self._find(term)
            at = int(np.searchsorted(self.terms, term))
            found = at if at < len(self) and self.terms[at] == term else -1
            if len(self._asked) < self.KEPT:
                self._asked[term] = found
            return found
        if len(self._asked) >= self.LOOKUPS:
            self._make_dict()
            return self._find(term)
        hits = np.flatnonzero(self.terms == term)
        found = int(hits[0]) if hits.shape[0] else -1
        self._asked[term] = found
        return found


class RowIndex(Mapping[int, int]):
    """Rowid -> position over a rowids array (a binary search when it ascends)."""

    def __init__(self, rowids: NDArray[np.int64]) -> None:
        import numpy as np

        self.rowids = rowids
        n = int(rowids.shape[0])
        self.ascending = n < 2 or bool(np.all(rowids[1:] > rowids[:-1]))
        self._dict = None if self.ascending else {int(r): k for k, r in enumerate(rowids)}

    def positions(self, ids: Sequence[int]) -> list[int]:
        """The position of each rowid in `ids`, -1 where it is not there."""
        import numpy as np

        if self._dict is not None:
            return [self._dict.get(int(i), -1) for i in ids]
        wanted = np.asarray(ids, dtype=np.int64)
        at = np.searchsorted(self.rowids, wanted)
        inside = at < self.rowids.shape[0]
        found = np.zeros(wanted.shape[0], dtype=np.bool_)
        found[inside] = self.rowids[at[inside]] == wanted[inside]
        return np.where(found, at, -1).tolist()  # type: ignore[no-any-return]

    def get(self, rowid: int, default: Any = None) -> Any:
        """The position of `rowid`, or `default`."""
        found = self.positions([rowid])[0]
        return default if found < 0 else found

    def __getitem__(self, rowid: int) -> int:
        found = self.positions([rowid])[0]
        if found < 0:
            raise KeyError(rowid)
        return int(found)

    def __len__(self) -> int:
        return int(self.rowids.shape[0])

    def __iter__(self) -> Iterator[int]:
        return iter(self.rowids.tolist())


class Strings(Sequence[str]):
    """A strings array read as `str` one item at a time (no list of them all up front)."""

    def __init__(self, array: NDArray[Any]) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [str(s) for s in self.array[index]]
        return str(self.array[index])

    def __len__(self) -> int:
        return int(self.array.shape[0])
