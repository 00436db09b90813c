// swift-tools-version:6.2
import PackageDescription

// CI builds with every warning an error (see Scripts/test); a developer's build only warns.
let isCI = Context.environment["CI"] == "true"
let strict: [SwiftSetting] = isCI ? [.treatAllWarnings(as: .error)] : []

let package = Package(
  name: "journal",
  products: [
    .executable(name: "journal", targets: ["journal"])
  ],
  // Exact versions: Package.resolved stays out of git, so these pins are what makes a build
  // repeatable.
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/apple/swift-system", exact: "1.8.1"),
  ],
  targets: [
    // The only importer of libsodium.
    .systemLibrary(
      name: "CSodium",
      pkgConfig: "libsodium",
      providers: [.apt(["libsodium-dev"])]
    ),
    // prctl and setrlimit for hardening the process (prctl is variadic: Swift cannot call it),
    // statfs for tmpfs, SO_PEERCRED.
    .target(name: "CJournalSystem"),
    // Operating-system plumbing: private files and directories, standard streams,
    // subprocesses, stop signals, hardening, the memory-backed runtime directory.
    .target(
      name: "JournalSystem",
      dependencies: ["CJournalSystem", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strict
    ),
    // Pure domain: sessions, the lifecycle, validation. No I/O.
    .target(name: "JournalCore", swiftSettings: strict),
    .target(
      name: "JournalCrypto",
      dependencies: ["CSodium", "JournalCore"],
      swiftSettings: strict
    ),
    // The storage seam: what the use cases (SessionStorage) and sync (SyncStorage) need of
    // where sessions are kept, and the values they hand across. Protocols and values only.
    .target(
      name: "JournalStorage", dependencies: ["JournalCore", "JournalCrypto"],
      swiftSettings: strict),
    // SQLite's pre-update hook, which <sqlite3.h> declares only where SQLITE_ENABLE_PREUPDATE_HOOK
    // is defined (Debian's libsqlite3 is built with it; GRDB's module of the header hides it).
    .target(name: "CSQLiteHooks", linkerSettings: [.linkedLibrary("sqlite3")]),
    .target(
      name: "JournalStore",
      dependencies: [
        "JournalCore", "JournalCrypto", "JournalSystem", "JournalStorage", "CSQLiteHooks",
        .product(name: "GRDB", package: "GRDB.swift"),
        // SQLite's own calls, for reading many rows without GRDB's per-row copies.
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      swiftSettings: strict
    ),
    // The encrypted, locked draft files of unsaved sessions.
    .target(
      name: "JournalDrafts",
      dependencies: ["JournalCore", "JournalCrypto", "JournalSystem"],
      swiftSettings: strict
    ),
    // The unlock agent: its server, client and wire format, and its lifetime state machine.
    .target(
      name: "JournalAgent",
      dependencies: ["JournalCore", "JournalCrypto", "JournalSystem", "CJournalSystem"],
      swiftSettings: strict
    ),
    // Sync's seam to a server (the SyncTransport protocol, its error, its wait bounds), and,
    // below it, the one backend: PostgreSQL through libpq, loaded at run time, its schema and
    // server addresses (restic's backend.go and its backends beside it).
    .target(
      name: "JournalSync",
      dependencies: ["JournalCore", "JournalCrypto", "JournalStorage", "JournalSystem"],
      swiftSettings: strict),
    .target(
      name: "JournalPostgres", dependencies: ["JournalSync", "JournalCore"], swiftSettings: strict),
    // The terminal and every view: the TTY, prompts, the mood slider, how output looks,
    // and the renderings of sessions, lists and trends.
    .target(
      name: "JournalTerminal",
      dependencies: ["JournalCore", "JournalCrypto"],
      swiftSettings: strict
    ),
    // Use cases, settings, the storage seam, passphrase sources, and the one error → exit-code
    // map.
    // The one error map: every module's errors to words and an exit code, and the reports.
    .target(
      name: "JournalDiagnostics",
      dependencies: [
        "JournalCore", "JournalCrypto", "JournalStore", "JournalDrafts", "JournalSystem",
        "JournalTerminal", "JournalAgent", "JournalSync",
      ],
      swiftSettings: strict
    ),
    .target(
      name: "JournalApp",
      dependencies: [
        "JournalDiagnostics", "JournalCore", "JournalCrypto", "JournalStorage", "JournalStore",
        "JournalDrafts",
        "JournalSystem", "JournalTerminal", "JournalAgent", "JournalSync", "JournalPostgres",
        "CJournalSystem",
      ],
      swiftSettings: strict
    ),
    // The thin front end: ArgumentParser and rendering.
    .executableTarget(
      name: "journal",
      dependencies: [
        "JournalApp", "JournalDiagnostics", "JournalTerminal", "JournalCore", "JournalSync",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict
    ),
    // posix_openpt for the pseudo-terminal tests (needs _XOPEN_SOURCE).
    .target(name: "CTestSupport"),
    .target(
      name: "JournalTestSupport",
      dependencies: [
        "JournalCore", "JournalCrypto", "JournalApp", "JournalTerminal", "CTestSupport",
      ],
      swiftSettings: strict
    ),
    // One entry point per parser of untrusted bytes, for the fuzzers (Fuzz/) and the corpus
    // replay in JournalReliabilityTests. Public API only, so release builds build it too.
    .target(
      name: "JournalFuzzHarness",
      dependencies: [
        "JournalApp", "JournalCore", "JournalCrypto", "JournalDrafts", "JournalStorage",
        "JournalStore", "JournalAgent",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalSystemTests",
      dependencies: ["JournalSystem"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalCoreTests",
      dependencies: ["JournalCore", "JournalTestSupport"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalCryptoTests",
      dependencies: ["JournalCrypto", "JournalCore", "JournalTestSupport"],
      resources: [.copy("Vectors")],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalStoreTests",
      dependencies: [
        "JournalStore", "JournalStorage", "JournalCrypto", "JournalCore", "JournalSystem",
        "JournalTestSupport",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      resources: [.copy("Fixtures")],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalAgentTests",
      dependencies: ["JournalAgent", "JournalCrypto", "JournalCore", "JournalTestSupport"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalDraftsTests",
      dependencies: [
        "JournalDrafts", "JournalCrypto", "JournalCore", "JournalSystem", "JournalTestSupport",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalAppTests",
      dependencies: [
        "JournalDiagnostics",
        "JournalDrafts", "JournalSystem", "JournalTerminal", "JournalAgent", "JournalSync",
        "JournalPostgres",
        "JournalApp", "JournalStore", "JournalCrypto", "JournalCore", "JournalTestSupport",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalDiagnosticsTests",
      dependencies: [
        "JournalDiagnostics", "JournalCore", "JournalCrypto", "JournalStore", "JournalDrafts",
        "JournalSystem", "JournalTerminal", "JournalAgent", "JournalSync",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalTerminalTests",
      dependencies: ["JournalTerminal", "JournalCore", "JournalTestSupport"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalStorageTests",
      dependencies: ["JournalStorage", "JournalCore", "JournalCrypto", "JournalTestSupport"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalPostgresTests",
      dependencies: ["JournalPostgres", "JournalSync"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalSyncTests",
      dependencies: [
        "JournalSync", "JournalPostgres", "JournalStorage", "JournalCrypto", "JournalCore",
        "JournalTestSupport",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "JournalCLITests",
      dependencies: ["JournalTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
      swiftSettings: strict
    ),
    // Tamper, crash, disk-full, concurrency, leak and bad-input runs against the real binary
    // and real files; light by default, heavy under Scripts/torture (JOURNAL_TORTURE_*).
    .testTarget(
      name: "JournalReliabilityTests",
      dependencies: [
        "JournalTestSupport", "JournalFuzzHarness", "JournalStore", "JournalCrypto", "JournalCore",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      swiftSettings: strict
    ),
  ]
)

// The libFuzzer executable (one for every parser of untrusted bytes, chosen by
// JOURNAL_FUZZ_TARGET), only when Scripts/torture asks for it (JOURNAL_FUZZ=1, built with
// `-sanitize=fuzzer`): it calls libFuzzer's driver, which an ordinary build does not link, so
// an ordinary build must not see it.
if Context.environment["JOURNAL_FUZZ"] == "1" {
  package.targets.append(.target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
  package.targets.append(
    .executableTarget(
      name: "fuzz", dependencies: ["CLibFuzzer", "JournalFuzzHarness"], path: "Fuzz/Targets/fuzz"))
}
