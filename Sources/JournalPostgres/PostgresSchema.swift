import JournalSync

/// The sync server's schema (SECURITY.md, "Sync"): plain PostgreSQL, no extension, created by
/// the person's own role (`journal sync setup`) or by a hosting admin from the printed SQL
/// (`journal sync setup --print-schema`).
///
/// Every row carries its owner, the role that wrote it (the session's login role, never given
/// by the client), and row-level security (forced, so the tables' owner is fenced too) lets a
/// role see only its own rows: one server can hold many people's journals. Keys begin with
/// the owner, so one role's ids never collide with, or block, another's. Other roles may only
/// read (their own rows) and call three functions that write as the tables' owner, each for
/// the calling role only (version 2): with UPDATE or DELETE a role could `LOCK TABLE` and stop
/// everyone's sync, which row-level security does not cover.
///
/// Versions are migrations, each applied once and never edited once shipped: `version1` as
/// issue 19 shipped it, `version2` on top of it. A server of an earlier version is brought up
/// to this one by a device whose role owns the tables, or by its admin running the printed
/// SQL again.
///
/// What the server holds is ciphertext and what it needs to serve it: per vault the wrapped
/// key header and a change counter; per session one sealed row, the latest version; and the
/// chain of changes (`journal_link`), each authenticated under a key the server never has.
public enum PostgresSchema {
  /// The schema version this code creates and reads (one definition, beside the transport
  /// seam: the engine compares a server's with it).
  public static var version: Int { ServerSchema.version }

  /// Version 1 (issue 19), as shipped: never edited.
  static let version1 = """
    CREATE TABLE IF NOT EXISTS journal_schema (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL
    );
    INSERT INTO journal_schema (version) VALUES (1) ON CONFLICT DO NOTHING;
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

  /// Version 2 (issue 33): no role but the tables' owner may write to them, lock them, or
  /// see another's rows; writes go through `journal_add_vault`, `journal_push` and
  /// `journal_remove_vault`,
  /// SECURITY DEFINER, each writing only rows whose owner is the calling login role
  /// (`session_user`, which a role cannot change: `current_user` inside such a function is
  /// its owner, so the policies and the owner column's default use `session_user` now, and
  /// the owner checks of version 1 go, the policies' WITH CHECK holding in their place). A
  /// push is one statement: the journal's row is locked only while it runs, never while a
  /// client is quiet inside a transaction. The functions find only pg_catalog's names before
  /// the tables' own schema, and pg_temp last, so that no other role's object can stand in.
  static let version2 = """
    LOCK TABLE journal_schema IN ACCESS EXCLUSIVE MODE;
    ALTER TABLE journal_vault DROP CONSTRAINT IF EXISTS journal_vault_owner_check;
    ALTER TABLE journal_link DROP CONSTRAINT IF EXISTS journal_link_owner_check;
    ALTER TABLE journal_row DROP CONSTRAINT IF EXISTS journal_row_owner_check;
    ALTER TABLE journal_vault ALTER COLUMN owner SET DEFAULT session_user;
    ALTER TABLE journal_link ALTER COLUMN owner SET DEFAULT session_user;
    ALTER TABLE journal_row ALTER COLUMN owner SET DEFAULT session_user;
    DROP POLICY IF EXISTS journal_vault_own ON journal_vault;
    CREATE POLICY journal_vault_own ON journal_vault
      USING (owner = session_user) WITH CHECK (owner = session_user);
    DROP POLICY IF EXISTS journal_link_own ON journal_link;
    CREATE POLICY journal_link_own ON journal_link
      USING (owner = session_user) WITH CHECK (owner = session_user);
    DROP POLICY IF EXISTS journal_row_own ON journal_row;
    CREATE POLICY journal_row_own ON journal_row
      USING (owner = session_user) WITH CHECK (owner = session_user);
    REVOKE ALL ON journal_schema, journal_vault, journal_link, journal_row FROM PUBLIC;
    GRANT SELECT ON journal_schema, journal_vault, journal_link, journal_row TO PUBLIC;
    CREATE OR REPLACE FUNCTION journal_add_vault(p_vault bytea, p_header bytea)
    RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS $journal$
    BEGIN
      INSERT INTO journal_vault (owner, vault_id, header)
      VALUES (session_user, p_vault, p_header) ON CONFLICT DO NOTHING;
      RETURN FOUND;
    END
    $journal$;
    CREATE OR REPLACE FUNCTION journal_push(
      p_vault bytea, p_expecting bigint, p_seq bigint, p_device bytea, p_entry bytea,
      p_tag bytea, p_header bytea, p_removed bytea[], p_ids bytea[], p_bodies bytea[])
    RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS $journal$
    DECLARE
      held bigint;
    BEGIN
      IF p_seq IS DISTINCT FROM p_expecting + 1
        OR cardinality(p_ids) IS DISTINCT FROM cardinality(p_bodies) THEN
        RAISE EXCEPTION 'journal_push: not a change that follows the counter'
          USING ERRCODE = '22023';
      END IF;
      SELECT counter INTO held FROM journal_vault
        WHERE owner = session_user AND vault_id = p_vault FOR UPDATE;
      IF held IS DISTINCT FROM p_expecting THEN
        RETURN false;
      END IF;
      DELETE FROM journal_row
        WHERE owner = session_user AND vault_id = p_vault AND row_id = ANY (p_removed);
      INSERT INTO journal_row (owner, vault_id, row_id, seq, body)
        SELECT session_user, p_vault, u.id, p_seq, u.body
        FROM unnest(p_ids, p_bodies) AS u (id, body)
        ON CONFLICT (owner, vault_id, row_id)
        DO UPDATE SET seq = excluded.seq, body = excluded.body;
      INSERT INTO journal_link (owner, vault_id, seq, device, entry, tag)
        VALUES (session_user, p_vault, p_seq, p_device, p_entry, p_tag);
      UPDATE journal_vault SET counter = p_seq, header = coalesce(p_header, header)
        WHERE owner = session_user AND vault_id = p_vault;
      RETURN true;
    END
    $journal$;
    CREATE OR REPLACE FUNCTION journal_remove_vault(p_vault bytea)
    RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS $journal$
    BEGIN
      DELETE FROM journal_vault WHERE owner = session_user AND vault_id = p_vault;
      RETURN FOUND;
    END
    $journal$;
    DO $journal$
    BEGIN
      EXECUTE format('ALTER FUNCTION journal_remove_vault(bytea) '
        || 'SET search_path = pg_catalog, %I, pg_temp', current_schema());
      EXECUTE format('ALTER FUNCTION journal_add_vault(bytea, bytea) '
        || 'SET search_path = pg_catalog, %I, pg_temp', current_schema());
      EXECUTE format('ALTER FUNCTION journal_push(bytea, bigint, bigint, bytea, bytea, bytea, '
        || 'bytea, bytea[], bytea[], bytea[]) SET search_path = pg_catalog, %I, pg_temp',
        current_schema());
    END
    $journal$;
    REVOKE ALL ON FUNCTION journal_add_vault(bytea, bytea) FROM PUBLIC;
    REVOKE ALL ON FUNCTION journal_remove_vault(bytea) FROM PUBLIC;
    REVOKE ALL ON FUNCTION journal_push(bytea, bigint, bigint, bytea, bytea, bytea, bytea,
      bytea[], bytea[], bytea[]) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION journal_add_vault(bytea, bytea) TO PUBLIC;
    GRANT EXECUTE ON FUNCTION journal_remove_vault(bytea) TO PUBLIC;
    GRANT EXECUTE ON FUNCTION journal_push(bytea, bigint, bigint, bytea, bytea, bytea, bytea,
      bytea[], bytea[], bytea[]) TO PUBLIC;
    UPDATE journal_schema SET version = 2 WHERE version < 2;
    """

  /// Version 3 (issue 36): no table changes. Rows may now be of layout 2 (tags and notes,
  /// vault format 14), which a device of version 2 would take for damage; the version tells
  /// it the server is newer instead.
  static let version3 = """
    UPDATE journal_schema SET version = 3 WHERE version < 3;
    """

  /// Creates the schema, or brings an earlier one up to this version: every migration in
  /// order, in one transaction; safe to run again.
  public static let sql =
    "BEGIN;\n" + version1 + "\n" + version2 + "\n" + version3 + "\nCOMMIT;"

  /// Brings a server of an earlier version up to this one, in one transaction.
  static let upgrade = "BEGIN;\n" + version2 + "\n" + version3 + "\nCOMMIT;"
}
