/*
 * The floor under `journal search`: what reading and decrypting every session's body costs
 * on this machine with libsodium and SQLite alone, no Swift. Scripts/bench times it beside
 * `journal search` so that the ratio to what the hardware allows is visible.
 *
 *   cc -O2 -o search-floor Scripts/search-floor.c -lsodium -lsqlite3
 *   search-floor VAULT WORD < passphrase-file
 *
 * Derives the key (SECURITY.md, "Key header"), then, timed on its own: reads every row in
 * the table's order, opens its body (per-column key, XSalsa20-Poly1305, padding), and looks
 * for WORD (bytes, as given) in the plaintext. Prints the sessions whose body holds it and the
 * time of the scan alone, in milliseconds, on standard error. Plaintexts stay in memory and
 * are wiped; nothing is written.
 */
#define _GNU_SOURCE
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int hex_byte(const char *s) {
  int value = 0;
  for (int i = 0; i < 2; i++) {
    char c = s[i];
    value <<= 4;
    if (c >= '0' && c <= '9') value |= c - '0';
    else if (c >= 'a' && c <= 'f') value |= c - 'a' + 10;
    else return -1;
  }
  return value;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: search-floor VAULT WORD < passphrase-file\n");
    return 2;
  }
  if (sodium_init() < 0) return 1;
  char passphrase[1100];
  if (!fgets(passphrase, sizeof passphrase, stdin)) return 2;
  passphrase[strcspn(passphrase, "\n")] = 0;
  size_t plen = strlen(passphrase);
  if (plen && passphrase[plen - 1] == '\r') passphrase[--plen] = 0;

  sqlite3 *db;
  char uri[4200];
  snprintf(uri, sizeof uri, "file:%s?mode=ro", argv[1]);
  if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
    fprintf(stderr, "search-floor: cannot open the vault\n");
    return 3;
  }
  sqlite3_stmt *header;
  sqlite3_prepare_v2(
      db, "SELECT kdf_opslimit, kdf_memlimit, kdf_salt, wrapped_key FROM vault", -1, &header,
      NULL);
  if (sqlite3_step(header) != SQLITE_ROW) return 3;
  unsigned long long ops = (unsigned long long)sqlite3_column_int64(header, 0);
  size_t mem = (size_t)sqlite3_column_int64(header, 1);
  const unsigned char *salt = sqlite3_column_blob(header, 2);
  const unsigned char *wrapped = sqlite3_column_blob(header, 3);
  int wrapped_len = sqlite3_column_bytes(header, 3);
  unsigned char kek[32], unwrapped[48], record_key[32];
  if (crypto_pwhash(kek, 32, passphrase, plen, salt, ops, mem, crypto_pwhash_ALG_ARGON2ID13) != 0)
    return 1;
  sodium_memzero(passphrase, sizeof passphrase);
  if (wrapped_len != 24 + 16 + 48 ||
      crypto_secretbox_open_easy(unwrapped, wrapped + 24, wrapped_len - 24, wrapped, kek) != 0) {
    fprintf(stderr, "search-floor: wrong passphrase\n");
    return 4;
  }
  crypto_kdf_derive_from_key(record_key, 32, 1, "jrnl-rec", unwrapped + 16);
  sodium_memzero(unwrapped, sizeof unwrapped);
  sqlite3_finalize(header);

  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  sqlite3_stmt *rows;
  sqlite3_prepare_v2(db, "SELECT id, revision, body FROM session", -1, &rows, NULL);
  size_t capacity = 1 << 16;
  unsigned char *plain = sodium_malloc(capacity);
  const char *word = argv[2];
  size_t word_len = strlen(word);
  long sessions = 0, found = 0;
  while (sqlite3_step(rows) == SQLITE_ROW) {
    const char *hex = (const char *)sqlite3_column_text(rows, 0);
    unsigned long long revision = (unsigned long long)sqlite3_column_int64(rows, 1);
    const unsigned char *body = sqlite3_column_blob(rows, 2);
    int body_len = sqlite3_column_bytes(rows, 2);
    if (!hex || strlen(hex) != 32 || body_len < 40) continue;
    unsigned char message[25], column_key[32];
    for (int i = 0; i < 16; i++) message[i] = (unsigned char)hex_byte(hex + 2 * i);
    message[16] = 2;
    size_t message_len = 17;
    if (revision) {
      for (int i = 0; i < 8; i++) message[17 + i] = (unsigned char)(revision >> (8 * i));
      message_len = 25;
    }
    crypto_generichash(column_key, 32, message, message_len, record_key, 32);
    size_t plain_len = (size_t)body_len - 40;
    if (plain_len > capacity) {
      sodium_free(plain);
      capacity = plain_len * 2;
      plain = sodium_malloc(capacity);
    }
    if (crypto_secretbox_open_easy(plain, body + 24, body_len - 24, body, column_key) != 0) continue;
    size_t unpadded;
    if (sodium_unpad(&unpadded, plain, plain_len, 256) != 0) continue;
    sessions++;
    if (word_len && memmem(plain, unpadded, word, word_len)) found++;
    sodium_memzero(plain, plain_len);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  sodium_free(plain);
  sodium_memzero(record_key, sizeof record_key);
  sqlite3_finalize(rows);
  sqlite3_close(db);
  double ms = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
  printf("%ld of %ld\n", found, sessions);
  fprintf(stderr, "%.1f\n", ms);
  return 0;
}
