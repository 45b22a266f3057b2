"""`Value`: immutable plain `__slots__` classes for the hook's firing path.

The modules a firing hook call runs (`cairn.core.context`, `cairn.core.lifecycle`,
`cairn.core.firing`, `cairn.usecases.calls`, `cairn.io.store.hookread`) build their value
objects on this base instead of `@dataclass`: `dataclasses` (which imports `inspect`) and
`typing` would cost that call ~20 ms of imports. `Value` gives each class what
`@dataclass(frozen=True)` gives: equality and hashing by fields, a repr, `replace`, and no
assignment after construction.

A new `cairn recall --json` process is held to the same line (issue 13, tenth round): the value
classes its imports define (`cairn.core.models`, the query, the gate's reading, the store's
rows, `Recalled`, ...) are `Value` classes too, so it imports no `dataclasses` (and with it
`inspect`, `ast`, `dis`, `tokenize`). Modules off both paths may use dataclasses.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the hook's firing path imports this module: no typing
if TYPE_CHECKING:
    from typing import Any, Self

__all__ = ["Value"]


class Value:
    """Field-wise equality, hashing and repr for a class naming its fields in `__slots__`."""

    __slots__: tuple[str, ...] = ()

    def _assign(self, *values: Any) -> None:
        """Set the fields, in `__slots__` order, from `__init__` (the one assignment allowed)."""
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.as_dict()))

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, in constructor order."""
        return {name: getattr(self, name) for name in self.__slots__}

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (as `dataclasses.replace` does)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        return type(self)(**{**self.as_dict(), **changes})


def _rebuild(cls: type[Value], fields: dict[str, Any]) -> Value:
    return cls(**fields)
