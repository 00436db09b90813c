#!/usr/bin/env python3
"""An independent reader of journal's vault format, written from SECURITY.md alone.

Prints every session as JSON. For checking the format and for getting your data out
without journal; it writes nothing. Needs PyNaCl (pip install pynacl).

    python3 Scripts/decrypt-vault.py ~/.local/share/journal/vault.db < passphrase-file
"""
import getpass
import json
import sqlite3
import struct
import sys
from datetime import datetime, timezone

import nacl.bindings as b
import nacl.encoding
import nacl.hash
import nacl.pwhash.argon2id as argon2id

RAW = nacl.encoding.RawEncoder
SUMMARY_TAGS = {1: "date", 2: "treatment", 3: "treatment_name", 4: "mood_before",
                5: "mood_after", 6: "status", 7: "created", 8: "updated"}
BODY_TAGS = {16: "dose", 17: "intention", 18: "environment", 19: "music", 20: "reflection"}
TIMES = {"date", "created", "updated"}
MOODS = {"mood_before", "mood_after"}


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


def fields(plain, tags):
    if not plain or plain[0] != 1:
        raise ValueError("unknown record version")
    out, offset = {}, 1
    while offset < len(plain):
        tag, length = plain[offset], struct.unpack("<I", plain[offset + 1:offset + 5])[0]
        value = plain[offset + 5:offset + 5 + length]
        if tag not in tags or tags[tag] in out or len(value) != length:
            raise ValueError("malformed field")
        name = tags[tag]
        if name in TIMES:
            ms = struct.unpack("<q", value)[0]
            out[name] = datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()
        elif name in MOODS:
            out[name] = value[0]
        else:
            out[name] = value.decode("utf-8")
        offset += 5 + length
    return out


def main():
    path = sys.argv[1]
    passphrase = (sys.stdin.readline() if not sys.stdin.isatty()
                  else getpass.getpass("Passphrase: ")).rstrip("\r\n").encode()
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    version, vault_id, alg, ops, mem, salt, wrapped = db.execute(
        "SELECT format_version, vault_id, kdf_algorithm, kdf_opslimit, kdf_memlimit, kdf_salt,"
        " wrapped_key FROM vault").fetchone()
    if version > 4 or alg != "argon2id13":
        sys.exit(f"unsupported vault format {version}")
    if not (2 <= ops <= 4 and 64 << 20 <= mem <= 1 << 30):
        sys.exit("key-derivation limits out of range: damaged or tampered vault")
    kek = argon2id.kdf(32, passphrase, salt, opslimit=ops, memlimit=mem)
    try:
        unwrapped = open_box(wrapped, kek)
    except Exception:
        sys.exit("wrong passphrase (or damaged header)")
    if unwrapped[:16] != vault_id:
        sys.exit("key header belongs to another vault")
    record_key = kdf_subkey(unwrapped[16:], 1, b"jrnl-rec")
    sessions = []
    for sid, status, summary, body in db.execute("SELECT id, status, summary, body FROM session"):
        raw = bytes.fromhex(sid)
        try:
            s = fields(unpad(open_box(summary, nacl.hash.blake2b(raw + b"\x01", digest_size=32, key=record_key, encoder=RAW))), SUMMARY_TAGS)
            s.update(fields(unpad(open_box(body, nacl.hash.blake2b(raw + b"\x02", digest_size=32, key=record_key, encoder=RAW))), BODY_TAGS))
            if s["status"] != status:
                raise ValueError("status mismatch")
            sessions.append(dict(s, id=sid))
        except Exception:
            sessions.append({"id": sid, "damaged": True})
    sessions.sort(key=lambda s: s.get("date", ""), reverse=True)
    json.dump(sessions, sys.stdout, indent=2, ensure_ascii=False, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
