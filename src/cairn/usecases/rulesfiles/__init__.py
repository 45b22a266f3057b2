"""Lessons to skills: export lessons and preferences as the rules files agents read natively,
and import those files (and CLAUDE.md / AGENTS.md bullet lists) back into memories.

Formats (paths relative to the output folder, by default the project folder):

    claude-skill   .claude/skills/cairn-lessons/SKILL.md      frontmatter name, description
    claude-rules   .claude/rules/cairn-NAME.md                frontmatter paths: (a YAML list)
    cursor         .cursor/rules/cairn-NAME.mdc               description, globs, alwaysApply
    copilot        .github/instructions/cairn-NAME.instructions.md   applyTo
    agents         AGENTS.md, a section between marker comments (the rest is kept)

Lessons triggered on reading or editing a glob go to one file per glob (Cursor, Copilot and
Claude rules scope a whole file by its globs); everything else (shell lessons, untriggered
lessons and preferences) goes to one always-on file. A Cairn glob without `/` matches a file
name at any depth, so it is written as `**/GLOB` for the tools. Each bullet carries a short
HTML comment, `<!-- cairn {"ref": ..., "kind": ..., "when": ...} -->`, invisible when the
Markdown is rendered, so an import gets back the exact kind and trigger; a reason is written as
a nested `Why:` bullet. Files this module wrote hold the `GENERATED` line, and a new export
removes those it no longer needs.

Import reads every bullet (`-`, `*`, `+` or `1.`) outside code fences, each as one memory (a
file scoped by its frontmatter, such as a Cursor rule with `globs` or `alwaysApply: true`, whose
body is prose without bullets gives one memory a paragraph),
through `Cairn.remember` with the tool name `import`, so refusals apply and importing a file
again is an echo. A sentence the store already holds from another tool is left alone (Cairn
re-reading a source it holds never counts as a confirmation). Without a Cairn comment, a
bullet in a file scoped by globs (`paths`, `globs`, `applyTo`) becomes a lesson triggered on
reading those files (these tools load such rules when a matching file is read, which comes
before an edit); a bullet in an always-on file becomes a preference (a standing instruction,
which never rests). Several globs are joined into one `{a,b}` choice when Cairn's glob grammar
allows it, else the first is kept and the import says so. A file that cannot be read, or holds
nothing to import, is listed as skipped with the reason; the others are still imported.

Modules (one job each): `export` (which memories, which files), `formats` (the file of each
format), `agents_md` (the AGENTS.md section), `markdown` (bullets both ways), `header` (the
frontmatter header and its globs), `read` (a file's text to memories), `importing` (into the
store through `remember`), `disk` (the read bound, the generated mark).
"""

from __future__ import annotations

from cairn.usecases.rulesfiles.agents_md import AGENTS_BEGIN, AGENTS_END
from cairn.usecases.rulesfiles.disk import GENERATED
from cairn.usecases.rulesfiles.export import Exported, chosen, export_rules
from cairn.usecases.rulesfiles.formats import FORMATS
from cairn.usecases.rulesfiles.header import tool_glob
from cairn.usecases.rulesfiles.importing import (
    IMPORT_TOOL,
    ImportedRule,
    RulesImported,
    import_rules,
)
from cairn.usecases.rulesfiles.read import RuleItem, read_rules

__all__ = [
    "AGENTS_BEGIN",
    "AGENTS_END",
    "FORMATS",
    "GENERATED",
    "IMPORT_TOOL",
    "Exported",
    "ImportedRule",
    "RuleItem",
    "RulesImported",
    "chosen",
    "export_rules",
    "import_rules",
    "read_rules",
    "tool_glob",
]
