#!/usr/bin/env python3
"""Writes the known-answer vectors in Tests/JournalCryptoTests/Vectors/ with PyNaCl.

An implementation independent of journal's Swift code, following SECURITY.md alone:
Argon2id key derivation, the wrapped data key, crypto_kdf subkeys (BLAKE2b with salt and
personalisation), the per-(session, column, revision) key, ISO/IEC 7816-4 padding and
secretbox, the ledger's tag ("The ledger"), and sealed additions ("Sealed additions": the
X25519 key pair from subkey 4, crypto_box_seal of a padded plaintext), with negative cases of
each, and the recovery code ("Recovery code": 16 bytes and a 4-byte check in Crockford
base32, its slot under a BLAKE2b key-encryption key).
Run: pip install pynacl && python3 Scripts/make-crypto-vectors.py
"""
import json
import os
import struct

import nacl.bindings as b
import nacl.hash
import nacl.pwhash.argon2id as argon2id
import nacl.encoding

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "JournalCryptoTests", "Vectors")
RAW = nacl.encoding.RawEncoder


def kdf_subkey(master, subkey_id, context):
    # crypto_kdf_derive_from_key: BLAKE2b-256 of nothing, keyed with the master key,
    # salt = subkey id (LE64) || 8 zero bytes, personal = context (8) || 8 zero bytes.
    salt = struct.pack("<Q", subkey_id) + bytes(8)
    person = context + bytes(8)
    return nacl.hash.blake2b(b"", digest_size=32, key=master, salt=salt, person=person, encoder=RAW)


def column_key(record_key, session_id, column, revision=0):
    message = session_id + bytes([column]) + (struct.pack("<Q", revision) if revision else b"")
    return nacl.hash.blake2b(message, digest_size=32, key=record_key, encoder=RAW)


STATUS = {"needs_reflection": 1, "complete": 2}


def ledger_tag(ledger_key, vault_id, generation, sessions, trash, tombstones):
    message = b"JRNLLEDG\x01" + vault_id + struct.pack("<Q", generation)
    for s in sorted(sessions, key=lambda s: (s["status"], s["id"])):
        message += b"\x01" + bytes.fromhex(s["id"]) + bytes([STATUS[s["status"]]])
        message += struct.pack("<Q", s["revision"])
    for t in sorted(trash, key=lambda t: t["id"]):
        message += b"\x02" + bytes.fromhex(t["id"]) + bytes([STATUS[t["status"]]])
        message += struct.pack("<Qqqq", t["revision"], t["batch"], t["deleted_at"], t["purge_after"])
    for d in sorted(tombstones):
        message += b"\x03" + bytes.fromhex(d)
    return nacl.hash.blake2b(message, digest_size=32, key=ledger_key, encoder=RAW)


def pad(data, block=256):
    padded_len = (len(data) // block + 1) * block
    return data + b"\x80" + bytes(padded_len - len(data) - 1)


def seal(key, nonce, plaintext):
    return nonce + b.crypto_secretbox(plaintext, nonce, key)


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def recovery_text(secret):
    """The code as written: secret and check, 160 bits, 32 characters in groups of 4."""
    check = nacl.hash.blake2b(b"JRNLRCHK\x01" + secret, digest_size=32, encoder=RAW)[:4]
    number = int.from_bytes(secret + check, "big")
    chars = [CROCKFORD[(number >> (5 * (31 - i))) & 31] for i in range(32)]
    return "-".join("".join(chars[i:i + 4]) for i in range(0, 32, 4))


def recovery_kek(secret, vault_id):
    return nacl.hash.blake2b(b"JRNLRCVY\x01" + vault_id, digest_size=32, key=secret, encoder=RAW)


def write(name, scenario):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(scenario, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    passphrase = "correct horse battery staple".encode()
    salt = bytes(range(16))
    vault_id = bytes(range(100, 116))
    data_key = bytes(range(200, 232))
    wrap_nonce = bytes(range(50, 74))
    ops, mem = 1, 8192  # Argon2id's minimum: vectors only, never a vault
    kek = argon2id.kdf(32, passphrase, salt, opslimit=ops, memlimit=mem)
    wrapped = seal(kek, wrap_nonce, vault_id + data_key)
    header = {
        "passphrase": passphrase.hex(), "salt": salt.hex(), "ops_limit": ops, "mem_limit": mem,
        "vault_id": vault_id.hex(), "data_key": data_key.hex(), "wrap_nonce": wrap_nonce.hex(),
        "wrapped_key": wrapped.hex(), "kek": kek.hex(),
    }
    write("header-unwrap", dict(header, expect="success"))
    write("header-wrong-passphrase",
          dict(header, passphrase=b"correct horse battery stapler".hex(), expect="wrong_passphrase"))
    flipped = bytearray(wrapped)
    flipped[40] ^= 0x01
    write("header-flipped-bit", dict(header, wrapped_key=bytes(flipped).hex(), expect="wrong_passphrase"))
    other = seal(kek, wrap_nonce, bytes(16) + data_key)
    write("header-other-vault", dict(header, wrapped_key=other.hex(), expect="vault_mismatch"))
    write("header-limits-too-low", dict(header, ops_limit=0, expect="limits_out_of_range"))
    write("header-memory-bomb", dict(header, mem_limit=1 << 42, expect="limits_out_of_range"))

    record_key = kdf_subkey(data_key, 1, b"jrnl-rec")
    draft_key = kdf_subkey(data_key, 2, b"jrnl-drf")
    session_id = bytes.fromhex("3f2a1b2c4d5e4f60a1b2c3d4e5f60718")
    plaintext = "\x01 a reflection: the light through the window, and 🌿".encode()
    nonce = bytes(range(24))
    sealed = seal(column_key(record_key, session_id, 2), nonce, pad(plaintext))
    record = {
        "data_key": data_key.hex(), "vault_id": vault_id.hex(), "record_key": record_key.hex(),
        "draft_key": draft_key.hex(), "session_id": session_id.hex(), "column": 2,
        "nonce": nonce.hex(), "plaintext": plaintext.hex(), "sealed": sealed.hex(),
    }
    write("record-open", dict(record, expect="success"))
    bad_tag = bytearray(sealed)
    bad_tag[30] ^= 0x80
    write("record-bad-tag", dict(record, sealed=bytes(bad_tag).hex(), expect="integrity"))
    write("record-truncated", dict(record, sealed=sealed[:-1].hex(), expect="integrity"))
    write("record-too-short", dict(record, sealed=sealed[:39].hex(), expect="integrity"))
    write("record-trailing-garbage", dict(record, sealed=(sealed + b"\x00").hex(), expect="integrity"))
    write("record-other-session",
          dict(record, session_id="3f2a1b2c4d5e4f60a1b2c3d4e5f60719", expect="integrity"))
    write("record-other-column", dict(record, column=1, expect="integrity"))
    unpadded = seal(column_key(record_key, session_id, 2), nonce, plaintext)
    write("record-no-padding", dict(record, sealed=unpadded.hex(), expect="malformed"))
    at_seven = seal(column_key(record_key, session_id, 2, 7), nonce, pad(plaintext))
    write("record-revision-open", dict(record, revision=7, sealed=at_seven.hex(), expect="success"))
    at_six = seal(column_key(record_key, session_id, 2, 6), nonce, pad(plaintext))
    write("record-older-revision", dict(record, revision=7, sealed=at_six.hex(), expect="integrity"))
    write("record-revision-zero", dict(record, revision=1, expect="integrity"))

    # The ledger: a tag over a vault's rows, and the same tag against rows changed since.
    ledger_key = kdf_subkey(data_key, 3, b"jrnl-led")
    sessions = [
        {"id": "3f2a1b2c4d5e4f60a1b2c3d4e5f60718", "status": "complete", "revision": 3},
        {"id": "0a0b0c0d0e0f40718293a4b5c6d7e8f9", "status": "needs_reflection", "revision": 1},
        {"id": "ffeeddccbbaa49887766554433221100", "status": "complete", "revision": 12},
    ]
    trash = [{"id": "5555555555554555a555555555555555", "status": "needs_reflection",
              "revision": 2, "batch": 4, "deleted_at": 1763661600000,
              "purge_after": 1763661610000}]
    tombstones = ["77777777777747779777777777777777"]
    generation = 9
    tag = ledger_tag(ledger_key, vault_id, generation, sessions, trash, tombstones)
    ledger = {"data_key": data_key.hex(), "vault_id": vault_id.hex(),
              "ledger_key": ledger_key.hex(), "generation": generation, "sessions": sessions,
              "trash": trash, "tombstones": tombstones, "tag": tag.hex()}
    write("ledger-match", dict(ledger, expect="match"))
    write("ledger-row-removed", dict(ledger, sessions=sessions[1:], expect="mismatch"))
    older = [dict(sessions[0], revision=2)] + sessions[1:]
    write("ledger-older-revision", dict(ledger, sessions=older, expect="mismatch"))
    flipped = [dict(sessions[0], status="needs_reflection")] + sessions[1:]
    write("ledger-status-changed", dict(ledger, sessions=flipped, expect="mismatch"))
    added = sessions + [{"id": "77777777777747779777777777777777", "status": "complete",
                         "revision": 1}]
    write("ledger-row-added", dict(ledger, sessions=added, expect="mismatch"))
    write("ledger-trash-dropped", dict(ledger, trash=[], expect="mismatch"))
    write("ledger-tombstone-dropped", dict(ledger, tombstones=[], expect="mismatch"))
    write("ledger-older-generation", dict(ledger, generation=8, expect="mismatch"))

    # Sealed additions: the key pair from subkey 4, and a box sealed to its public half.
    # crypto_box_seal draws an ephemeral key, so the box is this implementation's own; the
    # Swift test opens it, and opens its own seal with PyNaCl's reading (the same layout).
    seed = kdf_subkey(data_key, 4, b"jrnl-sea")
    public_key, _secret_key = b.crypto_box_seed_keypair(seed)
    words = "written while tired 🌙".encode()
    addition = b"\x01\x11" + struct.pack("<I", len(words)) + words
    box = b.crypto_box_seal(pad(addition), public_key)
    sealed_addition = {"data_key": data_key.hex(), "vault_id": vault_id.hex(),
                       "sealing_seed": seed.hex(), "public_key": public_key.hex(),
                       "plaintext": addition.hex(), "sealed": box.hex()}
    write("sealed-open", dict(sealed_addition, expect="success"))
    flipped = bytearray(box)
    flipped[70] ^= 0x01
    write("sealed-flipped-bit", dict(sealed_addition, sealed=bytes(flipped).hex(), expect="integrity"))
    write("sealed-truncated", dict(sealed_addition, sealed=box[:-1].hex(), expect="integrity"))
    other_public, _ = b.crypto_box_seed_keypair(bytes(32))
    other = b.crypto_box_seal(pad(addition), other_public)
    write("sealed-other-key", dict(sealed_addition, sealed=other.hex(), expect="integrity"))
    unpadded = b.crypto_box_seal(addition + bytes(256 - len(addition)), public_key)
    write("sealed-no-padding", dict(sealed_addition, sealed=unpadded.hex(), expect="malformed"))

    # The recovery code and its slot: the data key wrapped as wrapped_key is, under a key
    # derived from the code with one keyed BLAKE2b.
    rc_secret = bytes(range(1, 17))
    code = recovery_text(rc_secret)
    slot = seal(recovery_kek(rc_secret, vault_id), bytes(range(80, 104)), vault_id + data_key)
    recovery = {"vault_id": vault_id.hex(), "record_key": record_key.hex(), "code": code,
                "slot": slot.hex()}
    write("recovery-open", dict(recovery, expect="success"))
    write("recovery-open-typed", dict(recovery, code=code.lower().replace("-", " "),
                                      expect="success"))
    typo = ("Z" if code[5] != "Z" else "Y").join([code[:5], code[6:]])
    write("recovery-mistyped", dict(recovery, code=typo, expect="mistyped"))
    write("recovery-wrong-code", dict(recovery, code=recovery_text(bytes(range(2, 18))),
                                      expect="wrong_code"))
    write("recovery-other-vault", dict(recovery, vault_id=bytes(16).hex(), expect="wrong_code"))


if __name__ == "__main__":
    main()
