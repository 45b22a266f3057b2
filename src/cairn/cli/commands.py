"""Importing this module registers every command on the `cairn` group (one import a line)."""
# ruff: noqa: I001 - one import a line, so adding a command never touches another line

from cairn.cli import docs  # noqa: F401
from cairn.cli import gates  # noqa: F401
from cairn.cli import hook  # noqa: F401
from cairn.cli import learn  # noqa: F401
from cairn.cli import lessons  # noqa: F401
from cairn.cli import mcp  # noqa: F401
from cairn.cli import memory  # noqa: F401
from cairn.cli import progress  # noqa: F401
from cairn.cli import recall  # noqa: F401
from cairn.cli import rules  # noqa: F401
from cairn.cli import setup  # noqa: F401
from cairn.cli import stats  # noqa: F401
from cairn.cli import tidy  # noqa: F401
from cairn.cli import transfer  # noqa: F401
