"""Named schema migrations, applied in order and recorded in the `migrations` table.

A migration is never edited once released: a change to the schema is a new entry at the end.
A migration is SQL, or a function of the connection for what SQL cannot do (analysing text).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.io.store.reanalyse import reanalyse

if TYPE_CHECKING:
    from collections.abc import Callable
    from sqlite3 import Connection

MIGRATIONS: tuple[tuple[str, str | Callable[[Connection], None]], ...] = (
    (
        "0001_initial",
        """
        CREATE TABLE memories (
            id            INTEGER PRIMARY KEY,
            ref           TEXT NOT NULL UNIQUE,
            project       TEXT NOT NULL,
            scope         TEXT NOT NULL CHECK (scope IN ('project', 'workspace')),
            kind          TEXT NOT NULL,
            text          TEXT NOT NULL,
            folded        TEXT NOT NULL,
            tags          TEXT NOT NULL DEFAULT '[]',
            reason        TEXT NOT NULL DEFAULT '',
            source_ref    TEXT NOT NULL DEFAULT '',
            cite_fp       TEXT,
            when_json     TEXT,
            branch        TEXT NOT NULL DEFAULT '',
            pinned        INTEGER NOT NULL DEFAULT 0,
            tool          TEXT NOT NULL DEFAULT '',
            session       TEXT NOT NULL DEFAULT '',
            written       TEXT NOT NULL,
            until         TEXT,
            replaces      TEXT,
            replaced_by   TEXT,
            status        TEXT NOT NULL DEFAULT 'active',
            revision      INTEGER NOT NULL DEFAULT 1,
            last_touched  TEXT NOT NULL,
            fts_sentence  TEXT NOT NULL DEFAULT '',
            fts_tags      TEXT NOT NULL DEFAULT '',
            fts_citation  TEXT NOT NULL DEFAULT '',
            fts_reason    TEXT NOT NULL DEFAULT '',
            n_tokens      INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX memories_project ON memories (project, until, status);
        CREATE INDEX memories_folded ON memories (folded);
        CREATE TABLE memory_tags (
            memory_id INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
            tag       TEXT NOT NULL,
            PRIMARY KEY (tag, memory_id)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE memory_fts USING fts5 (
            fts_sentence, fts_tags, fts_citation, fts_reason,
            content = 'memories', content_rowid = 'id',
            tokenize = "unicode61 remove_diacritics 0"
        );
        CREATE VIRTUAL TABLE memory_vocab USING fts5vocab (memory_fts, 'row');
        CREATE TABLE index_stats (
            name     TEXT PRIMARY KEY,
            n_docs   INTEGER NOT NULL DEFAULT 0,
            n_tokens INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO index_stats (name) VALUES ('memories'), ('docs');
        CREATE TABLE evidence (
            id      INTEGER PRIMARY KEY,
            eid     TEXT NOT NULL UNIQUE,
            ref     TEXT NOT NULL REFERENCES memories (ref),
            event   TEXT NOT NULL,
            tool    TEXT NOT NULL DEFAULT '',
            session TEXT NOT NULL DEFAULT '',
            at      TEXT NOT NULL,
            act     TEXT,
            detail  TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX evidence_ref ON evidence (ref, event);
        CREATE INDEX evidence_session ON evidence (session, event);
        CREATE TABLE sessions (
            id      TEXT PRIMARY KEY,
            tool    TEXT NOT NULL DEFAULT '',
            project TEXT NOT NULL DEFAULT '',
            branch  TEXT NOT NULL DEFAULT '',
            cwd     TEXT NOT NULL DEFAULT '',
            started TEXT NOT NULL,
            ended   TEXT
        );
        CREATE INDEX sessions_branch ON sessions (project, branch);
        CREATE TABLE offers (
            id      INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            ref     TEXT NOT NULL,
            channel TEXT NOT NULL,
            tool    TEXT NOT NULL DEFAULT '',
            at      TEXT NOT NULL,
            detail  TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX offers_session ON offers (session, ref);
        CREATE INDEX offers_ref ON offers (ref);
        CREATE TABLE progress (
            id      INTEGER PRIMARY KEY,
            pid     TEXT NOT NULL UNIQUE,
            project TEXT NOT NULL,
            branch  TEXT NOT NULL DEFAULT '',
            goal    TEXT NOT NULL,
            step    TEXT NOT NULL,
            status  TEXT NOT NULL,
            tool    TEXT NOT NULL DEFAULT '',
            session TEXT NOT NULL DEFAULT '',
            at      TEXT NOT NULL
        );
        CREATE INDEX progress_branch ON progress (project, branch, at);
        CREATE TABLE docs (
            id        INTEGER PRIMARY KEY,
            project   TEXT NOT NULL,
            path      TEXT NOT NULL,
            heading   TEXT NOT NULL DEFAULT '',
            ordinal   INTEGER NOT NULL DEFAULT 0,
            text      TEXT NOT NULL,
            captured  INTEGER NOT NULL DEFAULT 0,
            fts_title TEXT NOT NULL DEFAULT '',
            fts_body  TEXT NOT NULL DEFAULT '',
            n_tokens  INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX docs_path ON docs (project, path);
        CREATE VIRTUAL TABLE doc_fts USING fts5 (
            fts_title, fts_body,
            content = 'docs', content_rowid = 'id',
            tokenize = "unicode61 remove_diacritics 0"
        );
        CREATE VIRTUAL TABLE doc_vocab USING fts5vocab (doc_fts, 'row');
        CREATE TABLE doc_files (
            project TEXT NOT NULL,
            path    TEXT NOT NULL,
            hash    TEXT NOT NULL,
            PRIMARY KEY (project, path)
        );
        """,
    ),
    (
        "0003_code_acts",
        """
        CREATE TABLE acts (
            id        INTEGER PRIMARY KEY,
            aid       TEXT NOT NULL UNIQUE,
            project   TEXT NOT NULL,
            branch    TEXT NOT NULL DEFAULT '',
            act       TEXT NOT NULL CHECK (act IN ('merge', 'revert', 'discard')),
            at        TEXT NOT NULL,
            source    TEXT NOT NULL CHECK (source IN ('git', 'review')),
            key       TEXT NOT NULL,
            detail    TEXT NOT NULL DEFAULT '{}',
            undone_at TEXT,
            UNIQUE (project, key)
        );
        CREATE INDEX acts_undone ON acts (undone_at);
        CREATE TABLE act_sessions (
            aid     TEXT NOT NULL REFERENCES acts (aid),
            session TEXT NOT NULL,
            PRIMARY KEY (aid, session)
        ) WITHOUT ROWID;
        CREATE INDEX act_sessions_session ON act_sessions (session);
        CREATE TABLE session_commits (
            session TEXT NOT NULL,
            sha     TEXT NOT NULL,
            at      TEXT NOT NULL,
            email   TEXT NOT NULL DEFAULT '',
            found   TEXT NOT NULL CHECK (found IN ('branch', 'reflog')),
            PRIMARY KEY (session, sha)
        ) WITHOUT ROWID;
        CREATE INDEX session_commits_sha ON session_commits (sha);
        CREATE TABLE learn_state (
            project TEXT NOT NULL,
            key     TEXT NOT NULL,
            value   TEXT NOT NULL,
            PRIMARY KEY (project, key)
        ) WITHOUT ROWID;
        """,
    ),
    (
        "0004_tidy",
        """
        CREATE TABLE tidy_declines (
            id    TEXT PRIMARY KEY,
            kind  TEXT NOT NULL,
            refs  TEXT NOT NULL DEFAULT '[]',
            at    TEXT NOT NULL
        );
        CREATE TABLE citation_sightings (
            ref        TEXT NOT NULL,
            status     TEXT NOT NULL,
            first_seen TEXT NOT NULL,
            PRIMARY KEY (ref, status)
        );
        """,
    ),
    (
        "0005_memory_counts",
        """
        CREATE TABLE memory_counts (
            project TEXT NOT NULL,
            scope   TEXT NOT NULL,
            n       INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (project, scope)
        ) WITHOUT ROWID;
        INSERT INTO memory_counts (project, scope, n)
            SELECT project, scope, count(*) FROM memories
            WHERE until IS NULL AND status != 'retired' GROUP BY project, scope;
        """,
    ),
    (
        # Recall scores memories from postings built from the analysed columns each memory
        # row carries (fts_sentence, fts_tags, fts_citation, fts_reason, n_tokens), written in
        # the row's own INSERT. The FTS5 index over the same text was read by nothing and its
        # segment flush was half of every remember's COMMIT. Docs keep their FTS5 index.
        "0006_drop_memory_fts",
        """
        DROP TABLE IF EXISTS memory_vocab;
        DROP TABLE IF EXISTS memory_fts;
        """,
    ),
    (
        # A forget now ends the version at the moment it happened (`until`), so `as_of` still
        # finds what was believed before it. A memory forgotten before this migration has no
        # such moment; the latest one it is known to have been believed at is its last
        # citation or restatement (`last_touched`, at least `written`).
        "0007_forget_ends_belief",
        """
        UPDATE memories SET until = last_touched WHERE status = 'retired' AND until IS NULL;
        """,
    ),
    (
        # Docs are kept in step by themselves (`cairn.usecases.docs.refresh_docs`): a file whose
        # stat
        # signature (inode, size, mtime, ctime) is the one recorded is not read again. Files
        # indexed before have none, so each is read once more and its hash compared.
        "0008_doc_signatures",
        """
        ALTER TABLE doc_files ADD COLUMN signature TEXT NOT NULL DEFAULT '';
        """,
    ),
    (
        # Gates (opt-in): a lesson or rule marked `gate` stops the first matching call of a
        # session once, with itself as the reason. `gate_denials` is the once-per-session
        # record (its primary key is the claim: written before the hook prints the denial)
        # and what `cairn stats` measures: the denial, and the first matching call after it.
        "0009_gates",
        """
        ALTER TABLE memories ADD COLUMN gate INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE gate_denials (
            session    TEXT NOT NULL,
            ref        TEXT NOT NULL,
            tool       TEXT NOT NULL DEFAULT '',
            at         TEXT NOT NULL,
            call       TEXT NOT NULL DEFAULT '',
            retry_at   TEXT,
            retry_call TEXT,
            PRIMARY KEY (session, ref)
        ) WITHOUT ROWID;
        CREATE INDEX gate_denials_ref ON gate_denials (ref, at);
        """,
    ),
    (
        # The trigger list beside the store (cairn.io.triggerlist) is derived from the current
        # memories that have a trigger, a `trigger:` tag or a source_ref. Triggers on
        # `memories` log every change to that set in the writing transaction itself, so no
        # writer can forget it; the newest `gen` is the store's trigger generation, which the
        # list's header names. A new list line is an `add`; a memory leaving the set (or a
        # listed column changing, which no Cairn code does) is a `drop`. `LIKE` is wider than
        # the `trigger:` tag test (any case): a change logged for nothing costs a refresh
        # that finds nothing to do, never a missed line. The last 1,000 changes (or a few
        # hundred more, pruned every 256) are kept: a list further behind is rewritten.
        # `store_id` names this store in the header, so that a list left by another store (a
        # database deleted and made again) is never taken for this one's. Triggers, not code
        # in `memories.insert` / `update`: an import, a future writer or a statement run by
        # hand is logged too; a plain fact pays only the WHEN test.
        "0010_trigger_changes",
        """
        CREATE TABLE store_id (
            id TEXT NOT NULL
        );
        INSERT INTO store_id (id) VALUES (lower(hex(randomblob(4))));
        CREATE TABLE trigger_changes (
            gen INTEGER PRIMARY KEY,
            ref TEXT NOT NULL,
            op  TEXT NOT NULL CHECK (op IN ('add', 'drop'))
        );
        CREATE TRIGGER trigger_changes_kept AFTER INSERT ON trigger_changes
        WHEN NEW.gen % 256 = 0
        BEGIN
            DELETE FROM trigger_changes WHERE gen <= NEW.gen - 1000;
        END;
        CREATE TRIGGER memories_listed_insert AFTER INSERT ON memories
        WHEN NEW.until IS NULL AND NEW.status != 'retired'
            AND (NEW.when_json IS NOT NULL OR NEW.source_ref != ''
                 OR NEW.tags LIKE '%"trigger:%')
        BEGIN
            INSERT INTO trigger_changes (ref, op) VALUES (NEW.ref, 'add');
        END;
        CREATE TRIGGER memories_listed_status AFTER UPDATE OF until, status ON memories
        WHEN (OLD.until IS NULL AND OLD.status != 'retired')
                != (NEW.until IS NULL AND NEW.status != 'retired')
            AND (NEW.when_json IS NOT NULL OR NEW.source_ref != ''
                 OR NEW.tags LIKE '%"trigger:%')
        BEGIN
            INSERT INTO trigger_changes (ref, op) VALUES (
                NEW.ref,
                CASE WHEN NEW.until IS NULL AND NEW.status != 'retired' THEN 'add' ELSE 'drop' END
            );
        END;
        CREATE TRIGGER memories_listed_columns
        AFTER UPDATE OF ref, project, scope, kind, tags, source_ref, when_json ON memories
        BEGIN
            INSERT INTO trigger_changes (ref, op) VALUES (OLD.ref, 'drop');
        END;
        CREATE TRIGGER memories_listed_delete AFTER DELETE ON memories
        BEGIN
            INSERT INTO trigger_changes (ref, op) VALUES (OLD.ref, 'drop');
        END;
        """,
    ),
    (
        # The analyser changed (cairn.core.text.ANALYSER_VERSION 2): a word written with a hyphen,
        # dot or slash inside is indexed joined too ("pre-production" also as
        # "preproduction"), so every stored row is analysed again from its text.
        "0011_reanalyse_joined_words",
        reanalyse,
    ),
    (
        # Memories newest first (`cairn list`, the app's list) read the newest rows from this
        # index instead of sorting the whole table: 55 ms -> 2 ms for a page at 10k memories.
        "0012_memories_written",
        "CREATE INDEX memories_written ON memories (written, id);",
    ),
    (
        # The `memories` row of index_stats was kept on every write and read by nothing
        # (recall's memory BM25 counts from its postings); only the docs' row stays. 0014 on
        # both backends: 0013 is PostgreSQL's own (one current sentence across machines).
        "0014_drop_memory_index_stats",
        "DELETE FROM index_stats WHERE name = 'memories';",
    ),
)
