-- radref D1 schema, migration 3: report templates and their voice commands.
--
-- tags and voice_aliases are JSON arrays. Every spoken phrase of a template (its voice_command
-- and each alias), normalised, has a row in voice_commands; the primary key makes a phrase
-- unique per user, so two concurrent writes of the same phrase cannot both succeed.

CREATE TABLE IF NOT EXISTS templates (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id),
    name          TEXT NOT NULL,
    content       TEXT NOT NULL,
    content_text  TEXT NOT NULL,
    exam_type     TEXT,
    modality      TEXT,
    category      TEXT,
    subcategory   TEXT,
    tags          TEXT NOT NULL DEFAULT '[]',
    voice_command TEXT,
    voice_aliases TEXT NOT NULL DEFAULT '[]',
    is_favorite   INTEGER NOT NULL DEFAULT 0,
    is_public     INTEGER NOT NULL DEFAULT 0,
    usage_count   INTEGER NOT NULL DEFAULT 0,
    last_used_at  TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS templates_user ON templates(user_id);
CREATE INDEX IF NOT EXISTS templates_public ON templates(is_public);

CREATE TABLE IF NOT EXISTS voice_commands (
    user_id     TEXT NOT NULL,
    phrase      TEXT NOT NULL,
    template_id TEXT NOT NULL REFERENCES templates(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, phrase)
);

CREATE INDEX IF NOT EXISTS voice_commands_template ON voice_commands(template_id);
