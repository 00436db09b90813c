/// The sync server's schema (issue 19): plain PostgreSQL, no extension and no server code,
/// created by the person's own role (or by a hosting admin from the printed SQL).
///
/// Every row carries its owner, the role that wrote it (`current_user`, never given by the
/// client), and row-level security (forced, so the tables' owner is fenced too) lets a role
/// see, change and add only its own rows: one server can hold many people's journals. Keys
/// begin with the owner, so one role's ids never collide with, or block, another's.
///
/// What the server holds is ciphertext only: the vault's wrapped-key header and its changes,
/// sealed on the devices under keys it never has. The layout of a change's `body` is the
/// sync protocol's (to come), not the schema's.
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
    CREATE TABLE IF NOT EXISTS journal_change (
      owner name NOT NULL DEFAULT current_user CHECK (owner = current_user),
      vault_id bytea NOT NULL,
      seq bigint NOT NULL CHECK (seq > 0),
      device bytea NOT NULL CHECK (length(device) = 16),
      body bytea NOT NULL,
      PRIMARY KEY (owner, vault_id, seq),
      FOREIGN KEY (owner, vault_id) REFERENCES journal_vault (owner, vault_id) ON DELETE CASCADE
    );
    ALTER TABLE journal_vault ENABLE ROW LEVEL SECURITY;
    ALTER TABLE journal_vault FORCE ROW LEVEL SECURITY;
    ALTER TABLE journal_change ENABLE ROW LEVEL SECURITY;
    ALTER TABLE journal_change FORCE ROW LEVEL SECURITY;
    DROP POLICY IF EXISTS journal_vault_own ON journal_vault;
    CREATE POLICY journal_vault_own ON journal_vault
      USING (owner = current_user) WITH CHECK (owner = current_user);
    DROP POLICY IF EXISTS journal_change_own ON journal_change;
    CREATE POLICY journal_change_own ON journal_change
      USING (owner = current_user) WITH CHECK (owner = current_user);
    GRANT SELECT ON journal_schema TO PUBLIC;
    GRANT SELECT, INSERT, UPDATE, DELETE ON journal_vault, journal_change TO PUBLIC;
    """
}
