import Foundation

/// A sync server's address as a person gives it, the way PostgreSQL users already do: a
/// `postgres://` URL or a libpq connection string (`service=journal`, `host=… dbname=…`).
/// Checked before anything connects: a password in it is refused (it would end up in shell
/// history and in the vault: it belongs in `~/.pgpass`, `PGPASSFILE` or a service file), and
/// a server that is not on this computer must be reached over TLS with its certificate
/// checked (`sslmode=verify-full`, added when not given).
public struct ServerAddress: Sendable, Equatable {
  /// What the person gave, as it is kept and shown.
  public let given: String
  /// What libpq is handed: `given`, with `sslmode=verify-full` added where it is needed.
  public let conninfo: String

  public init(_ text: String, environment: [String: String]) throws(SyncError) {
    let text = text.trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty, !text.contains(where: \.isNewline) else {
      throw .badAddress(reason: .unreadable)
    }
    let isURL = text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    let parts = isURL ? try Self.urlParts(text) : try Self.keywordParts(text)
    guard parts.keywords["password"] == nil, !parts.passwordInUserInfo else {
      throw .badAddress(reason: .password)
    }
    // libpq connects to `hostaddr` when it is given (`host` is then only the name the
    // certificate is checked against), else to `host`; either may come from the environment.
    var hosts: [String] = []
    if let address = parts.keywords["hostaddr"] ?? environment["PGHOSTADDR"] {
      hosts = address.split(separator: ",").map(String.init)
    } else {
      hosts = parts.hosts
      if hosts.isEmpty, let host = parts.keywords["host"] {
        hosts = host.split(separator: ",").map(String.init)
      }
      if hosts.isEmpty, parts.keywords["service"] == nil, let host = environment["PGHOST"] {
        hosts = host.split(separator: ",").map(String.init)
      }
    }
    // No host at all: libpq's default, the Unix socket. A service names its host in a file
    // journal does not read: it is treated as remote.
    let local =
      hosts.isEmpty
      ? parts.keywords["service"] == nil && environment["PGSERVICE"] == nil
      : hosts.allSatisfy(Self.isLocal)
    let mode = parts.keywords["sslmode"]
    if local || mode == "verify-full" {
      conninfo = text
    } else if let mode {
      throw .badAddress(reason: .weakTLS(mode: mode))
    } else if isURL {
      conninfo = text + (text.contains("?") ? "&" : "?") + "sslmode=verify-full"
    } else {
      conninfo = text + " sslmode=verify-full"
    }
    given = text
  }

  /// Loopback addresses (`localhost`, 127.0.0.0/8 written as an address, ::1) and Unix-socket
  /// directories. A name that only starts like one (`127.example.org`) is not.
  static func isLocal(_ host: String) -> Bool {
    let host = host.removingPercentEncoding ?? host
    if host.isEmpty || host.hasPrefix("/") || host.hasPrefix("@") || host == "localhost"
      || host == "::1" || host == "[::1]"
    {
      return true
    }
    var address = in_addr()
    return inet_pton(AF_INET, host, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
  }

  struct Parts {
    var hosts: [String] = []
    var keywords: [String: String] = [:]
    var passwordInUserInfo = false
  }

  /// postgres://[user[:password]@][host[:port]][,…][/dbname][?keyword=value&…]
  static func urlParts(_ text: String) throws(SyncError) -> Parts {
    var parts = Parts()
    var rest = Substring(text.drop { $0 != ":" }.dropFirst(3))
    if let query = rest.firstIndex(of: "?") {
      for pair in rest[rest.index(after: query)...].split(separator: "&") {
        let kv = pair.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { throw .badAddress(reason: .unreadable) }
        let value = String(kv[1]).removingPercentEncoding ?? String(kv[1])
        parts.keywords[String(kv[0])] = value
      }
      rest = rest[..<query]
    }
    let authority = rest.prefix { $0 != "/" }
    var hostPart = authority
    if let at = authority.lastIndex(of: "@") {
      parts.passwordInUserInfo = authority[..<at].contains(":")
      hostPart = authority[authority.index(after: at)...]
    }
    parts.hosts = hostPart.split(separator: ",").map { host in
      if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
        return String(host[host.startIndex...end])
      }
      return String(host.prefix { $0 != ":" })
    }.filter { !$0.isEmpty }
    return parts
  }

  /// keyword=value pairs, values optionally in single quotes with \' and \\ escapes.
  static func keywordParts(_ text: String) throws(SyncError) -> Parts {
    var parts = Parts()
    var characters = Substring(text)
    while true {
      characters = characters.drop { $0 == " " || $0 == "\t" }
      guard !characters.isEmpty else { break }
      let key = characters.prefix { $0 != "=" && $0 != " " }
      characters = characters.dropFirst(key.count).drop { $0 == " " }
      guard characters.first == "=", !key.isEmpty else { throw .badAddress(reason: .unreadable) }
      characters = characters.dropFirst().drop { $0 == " " }
      var value = ""
      if characters.first == "'" {
        characters = characters.dropFirst()
        var closed = false
        while let c = characters.first {
          characters = characters.dropFirst()
          if c == "\\", let next = characters.first {
            value.append(next)
            characters = characters.dropFirst()
          } else if c == "'" {
            closed = true
            break
          } else {
            value.append(c)
          }
        }
        guard closed else { throw .badAddress(reason: .unreadable) }
      } else {
        value = String(characters.prefix { $0 != " " && $0 != "\t" })
        characters = characters.dropFirst(value.count)
      }
      parts.keywords[String(key)] = value
    }
    guard !parts.keywords.isEmpty else { throw .badAddress(reason: .unreadable) }
    return parts
  }
}
