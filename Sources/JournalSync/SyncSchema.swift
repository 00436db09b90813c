/// The sync server's schema (SECURITY.md, "Sync"): plain PostgreSQL, no extension and no
/// server code, created by the person's own role (`journal sync setup`) or by a hosting admin
/// from the printed SQL (`journal sync setup --print-schema`).
///
/// Every row carries its owner, the role that wrote it (`current_user`, never given by the
/// client), and row-level security (forced, so the tables' owner is fenced too) lets a role
/// see, change and add only its own rows: one server can hold many people's journals. Keys
/// begin with the owner, so one role's ids never collide with, or block, another's.
///
/// What the server holds is ciphertext and what it needs to serve it: per vault the wrapped
/// key header and a change counter; per session one sealed row, the latest version; and the
/// chain of changes (`journal_link`), each authenticated under a key the server never has.
public enum SyncSchema {
  /// The schema version this code creates and reads.
  public static let version = 1

  /// Creates (or completes) the schema; safe to run again.
  public static let sql = """
    CREATE TABLE IF NOT EXISTS journal_schema (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL
    );
    INSERT INTO journal_schema (version) VALUES (\(version)) ON CONFLICT DO NOTHING;
    CREATE TABLE IF NOT EXISTS journal_vault (
      owner name NOT NULL DEFAULT current_user CHECK (owner = current_user),
      vault_id bytea NOT NULL CHECK (length(vault_id) = 16),
      header bytea NOT NULL,
      counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
      PRIMARY KEY (owner, vault_id)
    );
    CREATE TABLE IF NOT EXISTS journal_link (
      owner name NOT NULL DEFAULT current_user CHECK (owner = current_user),
      vault_id bytea NOT NULL,
      seq bigint NOT NULL CHECK (seq > 0),
      device bytea NOT NULL CHECK (length(device) = 16),
      entry bytea NOT NULL,
      tag bytea NOT NULL CHECK (length(tag) = 32),
      PRIMARY KEY (owner, vault_id, seq),
      FOREIGN KEY (owner, vault_id) REFERENCES journal_vault (owner, vault_id) ON DELETE CASCADE
    );
    CREATE TABLE IF NOT EXISTS journal_row (
      owner name NOT NULL DEFAULT current_user CHECK (owner = current_user),
      vault_id bytea NOT NULL,
      row_id bytea NOT NULL CHECK (length(row_id) = 16),
      seq bigint NOT NULL CHECK (seq > 0),
      body bytea NOT NULL,
      PRIMARY KEY (owner, vault_id, row_id),
      FOREIGN KEY (owner, vault_id) REFERENCES journal_vault (owner, vault_id) ON DELETE CASCADE
    );
    CREATE INDEX IF NOT EXISTS journal_row_seq ON journal_row (owner, vault_id, seq);
    ALTER TABLE journal_vault ENABLE ROW LEVEL SECURITY;
    ALTER TABLE journal_vault FORCE ROW LEVEL SECURITY;
    ALTER TABLE journal_link ENABLE ROW LEVEL SECURITY;
    ALTER TABLE journal_link FORCE ROW LEVEL SECURITY;
    ALTER TABLE journal_row ENABLE ROW LEVEL SECURITY;
    ALTER TABLE journal_row FORCE ROW LEVEL SECURITY;
    DROP POLICY IF EXISTS journal_vault_own ON journal_vault;
    CREATE POLICY journal_vault_own ON journal_vault
      USING (owner = current_user) WITH CHECK (owner = current_user);
    DROP POLICY IF EXISTS journal_link_own ON journal_link;
    CREATE POLICY journal_link_own ON journal_link
      USING (owner = current_user) WITH CHECK (owner = current_user);
    DROP POLICY IF EXISTS journal_row_own ON journal_row;
    CREATE POLICY journal_row_own ON journal_row
      USING (owner = current_user) WITH CHECK (owner = current_user);
    GRANT SELECT ON journal_schema TO PUBLIC;
    GRANT SELECT, INSERT, UPDATE, DELETE ON journal_vault, journal_link, journal_row TO PUBLIC;
    """
}
