#!/usr/bin/env python3
"""An independent reader of journal's vault format, written from SECURITY.md alone.

Prints every session as JSON, and, after them, every sealed addition still waiting to be
opened (format 7: "sealed_addition" says "new" or "later", "added_at" when it was written),
opened but not applied. For checking the format and for getting your data out without
journal; it writes nothing. Needs PyNaCl (pip install pynacl).

    python3 Scripts/decrypt-vault.py ~/.local/share/journal/vault.db < passphrase-file

With --deleted-notes, deleted notes are printed too (with "deleted", and "purge_after" while
their text is still kept): what the vault still holds of them.
"""
import getpass
import json
import sqlite3
import struct
import sys
import unicodedata
from datetime import datetime, timedelta, timezone

import nacl.bindings as b
import nacl.encoding
import nacl.hash
import nacl.pwhash.argon2id as argon2id

RAW = nacl.encoding.RawEncoder
# --deleted-notes: print deleted notes too.
DELETED_NOTES = False
SUMMARY_TAGS = {1: "date", 2: "treatment", 3: "treatment_name", 4: "mood_before",
                5: "mood_after", 6: "status", 7: "created", 8: "updated"}
BODY_TAGS = {16: "dose", 17: "intention", 18: "environment", 19: "music", 20: "reflection"}
# Format 7: when a session was added, and its later fields last added, without the passphrase.
MARK_TAGS = {21: "added_sealed", 22: "later_sealed"}
# Format 11: the same marks in the summary (where list reads them); a session has each mark
# in one place only.
SUMMARY_MARK_TAGS = {9: "added_sealed", 10: "later_sealed"}
# Format 10 (sync): texts another device wrote at the same time, kept in the body.
CONFLICT_TAGS = {23: "conflicts"}
# Format 14: tags in the summary, integration notes in the body.
SUMMARY_TAG_TAGS = {11: "tags", 12: "note_moods"}
NOTE_TAGS = {24: "notes"}
FIELD_NAMES = {16: "dose", 17: "intention", 18: "environment", 19: "music", 20: "reflection"}
LATER_TAGS = {5: "mood_after", 8: "updated", 18: "environment", 19: "music", 20: "reflection",
              24: "notes"}
TIMES = {"date", "created", "updated", "added_sealed", "later_sealed"}
# Years 0001 to 9999 (SECURITY.md, "Plaintexts"); anything else is damage.
TIME_RANGE = (-62135596800000, 253402300799999)
MOODS = {"mood_before", "mood_after"}
# Tag 4 (mood before) may be absent: not recorded (a session imported from jrnl). A reader
# gives an absent mood as null, never a number.
REQUIRED = {"date", "treatment", "status", "created", "updated", "intention"}
TREATMENTS = {"psilocybin", "mdma", "ketamine", "lsd", "ayahuasca", "mescaline", "dmt",
              "ibogaine", "cannabis", "other"}


def kdf_subkey(master, subkey_id, context):
    salt = struct.pack("<Q", subkey_id) + bytes(8)
    return nacl.hash.blake2b(b"", digest_size=32, key=master, salt=salt,
                             person=context + bytes(8), encoder=RAW)


def open_box(sealed, key):
    if len(sealed) < 40:
        raise ValueError("too short")
    return b.crypto_secretbox_open(sealed[24:], sealed[:24], key)


def unpad(padded, block=256):
    if len(padded) == 0 or len(padded) % block:
        raise ValueError("bad padding length")
    end = padded.rstrip(b"\x00")
    if not end.endswith(b"\x80") or len(padded) - len(end) >= block:
        raise ValueError("bad padding")
    return end[:-1]


def column_key(record_key, raw_id, column, revision):
    message = raw_id + bytes([column]) + (struct.pack("<Q", revision) if revision else b"")
    return nacl.hash.blake2b(message, digest_size=32, key=record_key, encoder=RAW)


STATUS_BYTE = {"needs_reflection": 1, "complete": 2}
SEALED_STATUSES = {"needs_reflection", "complete", "closed"}
STORED = {"closed": "complete"}


def ledger_problem(db, vault_id, ledger_key):
    """None when the vault adds up to its ledger (SECURITY.md, "The ledger"), else why not."""
    construction = 1
    if db.execute("SELECT count(*) FROM pragma_table_info('ledger')"
                  " WHERE name = 'construction'").fetchone()[0]:
        row = db.execute("SELECT generation, tag, construction FROM ledger").fetchone()
        if row is not None:
            construction = row[2]
            row = row[:2]
    else:
        row = db.execute("SELECT generation, tag FROM ledger").fetchone()
    revised = db.execute("SELECT EXISTS (SELECT 1 FROM session WHERE revision > 0)"
                         " OR EXISTS (SELECT 1 FROM trash WHERE revision > 0)").fetchone()[0]
    if row is None:
        return "the ledger is missing" if revised else None
    generation, tag = row
    trash = db.execute("SELECT id, status, revision, batch, deleted_at, purge_after, outcome,"
                       " length(summary) + length(body) FROM trash ORDER BY id").fetchall()
    outcome = {t[0]: t[6] for t in trash}
    live = {sid: (status, revision) for sid, status, revision in
            db.execute("SELECT id, status, revision FROM session")}
    buried = {r[0] for r in db.execute("SELECT id FROM tombstone")}
    for sid, status, revision, _, _, _, out, stored in trash:
        fits = {None: sid not in live and sid not in buried,
                "undone": live.get(sid) == (status, revision) and sid not in buried,
                "purged": sid not in live and sid in buried and stored == 0}.get(out, False)
        if not fits:
            return f"trash row {sid[:8]} does not fit the sessions"
    for sid in buried:
        if sid in live:
            return f"session {sid[:8]} is both live and purged"
    waiting_new = set()
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'addition'").fetchone()[0]:
        waiting_new = {r[0] for r in db.execute(
            "SELECT id FROM addition WHERE kind = 'new' AND status = 'needs_reflection'")}
    for (rid,) in db.execute("SELECT id FROM reminder"):
        if live.get(rid, ("",))[0] != "needs_reflection" and rid not in waiting_new:
            return f"the reminder of {rid[:8]} fits no waiting session"
    if construction == 3:
        return tree_problem(db, vault_id, ledger_key, generation, tag, live, trash, buried,
                            outcome)
    message = b"JRNLLEDG\x01" + vault_id + struct.pack("<Q", generation)
    for sid, (status, revision) in sorted(live.items(), key=lambda kv: (kv[1][0], kv[0])):
        if outcome.get(sid) != "undone":
            message += b"\x01" + bytes.fromhex(sid) + bytes([STATUS_BYTE[status]])
            message += struct.pack("<Q", revision)
    for sid, status, revision, batch, deleted_at, purge_after, _, _ in trash:
        message += b"\x02" + bytes.fromhex(sid) + bytes([STATUS_BYTE[status]])
        message += struct.pack("<Qqqq", revision, batch, deleted_at, purge_after)
    for sid in sorted(buried):
        if outcome.get(sid) != "purged":
            message += b"\x03" + bytes.fromhex(sid)
    # Format 10: what sync agreed, when the vault syncs.
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sync'").fetchone()[0]:
        settings = db.execute("SELECT device, seq, head, header_hash, server, clock_time,"
                              " clock_counter FROM sync").fetchone()
        if settings is not None:
            device, seq, head, header_hash, server, clock_time, clock_counter = settings
            message += b"\x04" + bytes(device) + struct.pack("<q", seq)
            message += bytes(head or bytes(32)) + bytes(header_hash or bytes(32))
            message += nacl.hash.blake2b(server.encode("utf-8"), digest_size=32, encoder=RAW)
            message += struct.pack("<qq", clock_time, clock_counter)
            for sid, revision, generation in db.execute(
                    "SELECT id, revision, generation FROM sync_row ORDER BY id"):
                message += b"\x05" + bytes.fromhex(sid) + struct.pack("<qq", revision, generation)
    # Format 11 (construction 2): whether sealed capture is on, and the recovery slot.
    if construction == 2:
        sealing, slot = db.execute("SELECT sealing_key, recovery_slot FROM vault").fetchone()
        message += b"\x06" + bytes([0 if sealing is None else 1])
        message += (nacl.hash.blake2b(bytes(slot), digest_size=32, encoder=RAW)
                    if slot is not None else bytes(32))
    elif construction != 1:
        return "the ledger's construction is unknown"
    expected = nacl.hash.blake2b(message, digest_size=32, key=ledger_key, encoder=RAW)
    if not b.sodium_memcmp(expected, bytes(tag)):
        return "the rows do not add up to the ledger: a session removed, added or put back"
    return None


def sync_header(db):
    """The Y entry (SECURITY.md, "The ledger"): what sync agreed, empty for a vault that does
    not sync."""
    settings = db.execute("SELECT device, seq, head, header_hash, server, clock_time,"
                          " clock_counter FROM sync").fetchone()
    if settings is None:
        return b""
    device, seq, head, header_hash, server, clock_time, clock_counter = settings
    entry = b"\x04" + bytes(device) + struct.pack("<q", seq)
    entry += bytes(head or bytes(32)) + bytes(header_hash or bytes(32))
    entry += nacl.hash.blake2b(server.encode("utf-8"), digest_size=32, encoder=RAW)
    return entry + struct.pack("<qq", clock_time, clock_counter)


def tree_problem(db, vault_id, ledger_key, generation, tag, live, trash, buried, outcome):
    """Construction 3 (formats 12 and 13): the tag over the root of the tree of the S, D and R
    entries, by the first two bytes of their id; the stored digests must be the ones made."""
    leaves = {}

    def add(sid, entry, order):
        leaves.setdefault(int(sid[:4], 16), []).append((order, sid, entry))

    for sid, (status, revision) in live.items():
        if outcome.get(sid) != "undone":
            add(sid, b"\x01" + bytes.fromhex(sid) + bytes([STATUS_BYTE[status]])
                + struct.pack("<Q", revision), 0)
    for sid in buried:
        if outcome.get(sid) != "purged":
            add(sid, b"\x03" + bytes.fromhex(sid), 1)
    for sid, revision, generation_ in db.execute("SELECT id, revision, generation FROM sync_row"):
        add(sid, b"\x05" + bytes.fromhex(sid) + struct.pack("<qq", revision, generation_), 2)
    zero = bytes(32)
    leaf_digest = [zero] * 65536
    for index, entries in leaves.items():
        body = b"".join(entry for _, _, entry in sorted(entries))
        leaf_digest[index] = nacl.hash.blake2b(
            b"JRNLLEAF" + struct.pack(">H", index) + body, digest_size=32, encoder=RAW)
    nodes = []
    for node in range(256):
        group = leaf_digest[256 * node:256 * node + 256]
        nodes.append(zero if all(d == zero for d in group) else nacl.hash.blake2b(
            b"JRNLNODE" + bytes([node]) + b"".join(group), digest_size=32, encoder=RAW))
    root = nacl.hash.blake2b(b"JRNLROOT" + b"".join(nodes), digest_size=32, encoder=RAW)
    message = b"JRNLLEDG\x03" + vault_id + struct.pack("<Q", generation) + root
    for sid, status, revision, batch, deleted_at, purge_after, _, _ in trash:
        message += b"\x02" + bytes.fromhex(sid) + bytes([STATUS_BYTE[status]])
        message += struct.pack("<Qqqq", revision, batch, deleted_at, purge_after)
    message += sync_header(db)
    sealing, slot = db.execute("SELECT sealing_key, recovery_slot FROM vault").fetchone()
    message += b"\x06" + bytes([0 if sealing is None else 1])
    message += (nacl.hash.blake2b(bytes(slot), digest_size=32, encoder=RAW)
                if slot is not None else bytes(32))
    expected = nacl.hash.blake2b(message, digest_size=32, key=ledger_key, encoder=RAW)
    if not b.sodium_memcmp(expected, bytes(tag)):
        return "the rows do not add up to the ledger: a session removed, added or put back"
    stored_leaves = {i: bytes(d) for i, d in db.execute("SELECT leaf, digest FROM ledger_leaf")}
    stored_nodes = {i: bytes(d) for i, d in db.execute("SELECT node, digest FROM ledger_node")}
    if stored_leaves != {i: d for i, d in enumerate(leaf_digest) if d != zero} \
            or stored_nodes != {i: d for i, d in enumerate(nodes) if d != zero}:
        return "the ledger's tree was changed in the file"
    return None


def fields(plain, tags):
    if not plain or plain[0] != 1:
        raise ValueError("unknown record version")
    out, offset, previous = {}, 1, 0
    while offset < len(plain):
        if len(plain) - offset < 5:
            raise ValueError("malformed field")
        tag, length = plain[offset], struct.unpack("<I", plain[offset + 1:offset + 5])[0]
        value = plain[offset + 5:offset + 5 + length]
        # Tags strictly ascend (so none repeats); a length past the end is damage.
        if tag not in tags or tag <= previous or len(value) != length:
            raise ValueError("malformed field")
        previous = tag
        name = tags[tag]
        if name in TIMES:
            if length != 8:
                raise ValueError("a time is 8 bytes")
            ms = struct.unpack("<q", value)[0]
            if not TIME_RANGE[0] <= ms <= TIME_RANGE[1]:
                raise ValueError("a time out of range")
            out[name] = datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()
        elif name == "conflicts":
            out[name] = conflicts(value)
        elif name == "tags":
            out[name] = parse_tags(value)
        elif name == "note_moods":
            if not value or len(value) % 3 or any(not 1 <= value[i + 2] <= 10
                                                   for i in range(0, len(value), 3)):
                raise ValueError("malformed note moods")
            out[name] = [(struct.unpack("<H", value[i:i + 2])[0], value[i + 2])
                         for i in range(0, len(value), 3)]
        elif name == "notes":
            out[name] = parse_notes(value)
        elif name in MOODS:
            if length != 1 or not 1 <= value[0] <= 10:
                raise ValueError("mood out of range")
            out[name] = value[0]
        else:
            out[name] = value.decode("utf-8")
        offset += 5 + length
    return out


def conflicts(value):
    """Tag 23: for each, field tag (1), stamp (28: ms 8, counter 4, device 16, big-endian),
    text length (4, little-endian), text."""
    out, offset = [], 0
    while offset < len(value):
        if len(value) - offset < 33 or value[offset] not in FIELD_NAMES:
            raise ValueError("malformed conflict")
        ms = struct.unpack(">Q", value[offset + 1:offset + 9])[0]
        length = struct.unpack("<I", value[offset + 29:offset + 33])[0]
        text = value[offset + 33:offset + 33 + length]
        if len(text) != length:
            raise ValueError("malformed conflict")
        out.append({"field": FIELD_NAMES[value[offset]], "text": text.decode("utf-8"),
                    "written": datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()})
        offset += 33 + length
    if not out:
        raise ValueError("malformed conflict")
    return out


def parse_tags(value):
    """Tag 11: for each tag, its length (1) and its UTF-8; sorted, each once, 1 to 32."""
    out, offset = [], 0
    while offset < len(value):
        length = value[offset]
        name = value[offset + 1:offset + 1 + length]
        if len(name) != length or not 1 <= length <= 64:
            raise ValueError("malformed tag")
        name = name.decode("utf-8")
        stored = unicodedata.normalize("NFC", name.strip().lower())
        if name != stored or "," in name or any(ord(c) < 32 or 127 <= ord(c) < 160
                                                for c in name):
            raise ValueError("malformed tag")
        out.append(name)
        offset += 1 + length
    if not out or len(out) > 32 or [x.encode() for x in out] != sorted(
            set(x.encode() for x in out)):
        raise ValueError("malformed tags")
    return out


def iso(ms):
    if not TIME_RANGE[0] <= ms <= TIME_RANGE[1]:
        raise ValueError("a time out of range")
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()


def parse_notes(value):
    """Tag 24: for each note, flags (1) ‖ id (8) ‖ written (8) ‖ edited, deleted, purge after,
    kept from (8 each, when flagged) ‖ mood (1, when flagged) ‖ versions (1) ‖ versions (8
    each) ‖ text length (4) ‖ text; little-endian. Deleted notes are left out (as journal
    shows them) unless --deleted-notes was given; a reader still checks them."""
    out, offset, previous, ids = [], 0, None, set()

    def take(count):
        nonlocal offset
        chunk = value[offset:offset + count]
        if len(chunk) != count:
            raise ValueError("malformed note")
        offset += count
        return chunk

    count = 0
    while offset < len(value):
        flags = take(1)[0]
        if flags >= 64 or (flags & 8 and not flags & 4):
            raise ValueError("malformed note")
        note_id = struct.unpack("<Q", take(8))[0]
        written = struct.unpack("<q", take(8))[0]
        note = {"written": iso(written)}
        for bit, name in ((2, "edited"), (4, "deleted"), (8, "purge_after")):
            if flags & bit:
                note[name] = iso(struct.unpack("<q", take(8))[0])
        if flags & 32:
            take(8)
            note["kept_from_another_device"] = True
        note["mood"] = None
        if flags & 1:
            mood = take(1)[0]
            if not 1 <= mood <= 10:
                raise ValueError("mood out of range")
            note["mood"] = mood
        versions = take(1)[0]
        if not 1 <= versions <= 16:
            raise ValueError("malformed note")
        take(8 * versions)
        length = struct.unpack("<I", take(4))[0]
        if length > 1 << 20:
            raise ValueError("note too long")
        note["text"] = take(length).decode("utf-8")
        if flags & 16:
            note["added_sealed"] = True
        if (previous is not None and previous >= (written, note_id)) or note_id in ids:
            raise ValueError("notes out of order")
        previous = (written, note_id)
        ids.add(note_id)
        count += 1
        if not flags & 4 or DELETED_NOTES:
            out.append(note)
    if count == 0 or count > 40000:
        raise ValueError("malformed notes")
    return out


def check_session(s, status, version):
    """Raises unless the opened fields `s` follow SECURITY.md ("Plaintexts")."""
    # The clear column says "complete" for a session closed without a reflection.
    sealed = s.get("status")
    if not REQUIRED <= s.keys() or STORED.get(sealed, sealed) != status:
        raise ValueError("missing field or status mismatch")
    # A known treatment; a name with "other" and only with it; complete exactly when
    # reflected on, closed (format 6) only without a reflection.
    if s["treatment"] not in TREATMENTS or sealed not in SEALED_STATUSES:
        raise ValueError("unknown treatment or status")
    if sealed == "closed" and version < 6:
        raise ValueError("closed in a vault older than format 6")
    if ("treatment_name" in s) != (s["treatment"] == "other"):
        raise ValueError("treatment name without other, or other without a name")
    if (s["status"] == "complete") != ("reflection" in s):
        raise ValueError("status does not match the reflection")
    # Tag 12 is what the notes shown (with a mood) and the date say (format 14).
    moods = s.pop("note_moods", [])
    date = datetime.fromisoformat(s["date"])
    derived = [(min(65535, max(0, (datetime.fromisoformat(n["written"]) - date)
                               // timedelta(days=1))), n["mood"])
               for n in s.get("notes", []) if n["mood"] is not None and "deleted" not in n]
    if moods != derived:
        raise ValueError("note moods do not match the notes")
    for mood in MOODS:
        s.setdefault(mood, None)


def open_addition(box, public_key, secret_key):
    """A sealed addition's plaintext (SECURITY.md, "Sealed additions")."""
    if len(box) < 48 + 256:
        raise ValueError("too short")
    return unpad(b.crypto_box_seal_open(box, public_key, secret_key))


def additions(db, data_key, stored_key, version):
    """Every sealed addition waiting, opened (not applied), in the order written."""
    if version < 7:
        return []
    public_key, secret_key = b.crypto_box_seed_keypair(kdf_subkey(data_key, 4, b"jrnl-sea"))
    if stored_key is not None and not b.sodium_memcmp(bytes(stored_key), public_key):
        sys.exit("tampered: the vault's sealing key is not the one its data key gives")
    out = []
    for sid, kind, status, added_at, box in db.execute(
            "SELECT id, kind, status, added_at, box FROM addition ORDER BY seq"):
        entry = {"id": sid, "sealed_addition": kind, "added_at":
                 datetime.fromtimestamp(added_at / 1000, timezone.utc).isoformat()}
        try:
            plain = open_addition(bytes(box), public_key, secret_key)
            if kind == "new":
                s = fields(plain, {**SUMMARY_TAGS, **BODY_TAGS, **(
                    {11: "tags"} if version >= 14 else {})})
                check_session(s, status, version)
            elif kind == "later":
                s = fields(plain, LATER_TAGS if version >= 14 else {
                    k: v for k, v in LATER_TAGS.items() if k != 24})
                if "updated" not in s or len(s) < 2:
                    raise ValueError("later fields need a time and at least one field")
                # A note comes alone (format 14), and with text.
                if "notes" in s and (len(s) != 2 or len(s["notes"]) != 1
                                     or not s["notes"][0]["text"]):
                    raise ValueError("a sealed note comes alone")
                if (status == "complete") != ("reflection" in s):
                    raise ValueError("status does not match the reflection")
            else:
                raise ValueError("unknown kind")
            # Only texts a form would save (SECURITY.md, "Sealed additions").
            for name in ("dose", "intention", "environment", "music", "reflection"):
                text = s.get(name)
                allowed = "" if name == "dose" else "\n\t"
                if text is not None and (text != text.strip() or any(
                        (ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed
                        for c in text)):
                    raise ValueError("a text no form would save")
            entry.update(s)
        except Exception:
            entry["damaged"] = True
        out.append(entry)
    return out


def main():
    global DELETED_NOTES
    arguments = sys.argv[1:]
    DELETED_NOTES = "--deleted-notes" in arguments
    paths = [a for a in arguments if a != "--deleted-notes"]
    if len(paths) != 1:
        sys.exit("usage: decrypt-vault.py VAULT [--deleted-notes] < passphrase-file")
    path = paths[0]
    # The first line: the bytes before the first "\n" (all of them without one), less one "\r"
    # at its end; nothing else is trimmed (SECURITY.md, "Key header").
    if sys.stdin.isatty():
        passphrase = getpass.getpass("Passphrase: ").encode()
    else:
        passphrase = sys.stdin.buffer.read().split(b"\n", 1)[0]
        if passphrase.endswith(b"\r"):
            passphrase = passphrase[:-1]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    version, vault_id, alg, ops, mem, salt, wrapped = db.execute(
        "SELECT format_version, vault_id, kdf_algorithm, kdf_opslimit, kdf_memlimit, kdf_salt,"
        " wrapped_key FROM vault").fetchone()
    if version > 14 or alg != "argon2id13":
        sys.exit(f"unsupported vault format {version}")
    if not (2 <= ops <= 4 and 64 << 20 <= mem <= 1 << 30):
        sys.exit("key-derivation limits out of range: damaged or tampered vault")
    kek = argon2id.kdf(32, passphrase, salt, opslimit=ops, memlimit=mem)

    def unwrap(box, wrong):
        """vault_id || data_key sealed under the KEK (SECURITY.md, "Key header")."""
        try:
            opened = open_box(box, kek)
        except Exception:
            sys.exit(wrong)
        if opened[:16] != vault_id:
            sys.exit("key header belongs to another vault")
        return opened[16:]

    data_key = unwrap(wrapped, "wrong passphrase (or damaged header)")
    # A key rotation under way (format 9, "Key rotation"): the new key is wrapped under the
    # same KEK as the old; the ledger is under the new key, each row under either.
    rotation_key = (db.execute("SELECT rotation_key FROM vault").fetchone()[0]
                    if version >= 9 else None)
    new_key = data_key
    if rotation_key is not None:
        new_key = unwrap(rotation_key, "the rotation key does not open: damaged header")
    old_record_key = kdf_subkey(data_key, 1, b"jrnl-rec")
    new_record_key = kdf_subkey(new_key, 1, b"jrnl-rec")
    if version >= 5:
        problem = ledger_problem(db, vault_id, kdf_subkey(new_key, 3, b"jrnl-led"))
        if problem:
            sys.exit(f"tampered: {problem}")
    revision = "revision" if version >= 5 else "0"
    body_tags = {**BODY_TAGS, **MARK_TAGS} if version >= 7 else BODY_TAGS
    if version >= 10:
        body_tags = {**body_tags, **CONFLICT_TAGS}
    if version >= 14:
        body_tags = {**body_tags, **NOTE_TAGS}
    summary_tags = {**SUMMARY_TAGS, **SUMMARY_MARK_TAGS} if version >= 11 else SUMMARY_TAGS
    if version >= 14:
        summary_tags = {**summary_tags, **SUMMARY_TAG_TAGS}
    sessions = []
    for sid, status, summary, body, rev in db.execute(
            f"SELECT id, status, summary, body, {revision} FROM session"):
        raw = bytes.fromhex(sid)
        try:
            # During a rotation a row is under the new key or the old: the new is tried first.
            for record_key in dict.fromkeys([new_record_key, old_record_key]):
                try:
                    plain = unpad(open_box(summary, column_key(record_key, raw, 1, rev)))
                    break
                except Exception:
                    plain = None
            if plain is None:
                raise ValueError("does not open")
            s = fields(plain, summary_tags)
            opened = fields(unpad(open_box(body, column_key(record_key, raw, 2, rev))), body_tags)
            if s.keys() & opened.keys():
                raise ValueError("a mark in both the summary and the body")
            s.update(opened)
            check_session(s, status, version)
            sessions.append(dict(s, id=sid))
        except Exception:
            sessions.append({"id": sid, "damaged": True})
    sessions.sort(key=lambda s: s.get("date", ""), reverse=True)
    stored_key = db.execute("SELECT sealing_key FROM vault").fetchone()[0] if version >= 7 else None
    sessions += additions(db, data_key, stored_key, version)
    json.dump(sessions, sys.stdout, indent=2, ensure_ascii=False, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
