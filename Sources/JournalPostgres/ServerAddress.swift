import Foundation
import JournalSync

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
  /// How long connecting may take, in milliseconds: the address's `connect_timeout` (or
  /// `PGCONNECT_TIMEOUT`), in seconds, as libpq reads it (at least 2), else 10 s. journal keeps
  /// it itself, as libpq does not when it is driven asynchronously.
  public let connectTimeout: Int

  public init(_ text: String, environment: [String: String]) throws(SyncError) {
    let text = text.trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty, !text.contains(where: \.isNewline) else {
      throw .badAddress(reason: .unreadable)
    }
    let isURL = text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    let parts = isURL ? try Self.urlParts(text) : try Self.keywordParts(text)
    // Secrets never go in the address (nor, with it, in the vault and the shell's history).
    guard parts.keywords["password"] == nil, parts.keywords["sslpassword"] == nil,
      !parts.passwordInUserInfo
    else {
      throw .badAddress(reason: .password)
    }
    // libpq connects to `hostaddr` when it is given (`host` is then only the name the
    // certificate is checked against), else to `host` (a URL's query overrides the host
    // before the path); either may come from the environment.
    var hosts: [String] = []
    if let address = parts.keywords["hostaddr"] ?? environment["PGHOSTADDR"] {
      hosts = address.split(separator: ",").map(String.init)
    } else {
      if let host = parts.keywords["host"] {
        hosts = host.split(separator: ",").map(String.init)
      } else {
        hosts = parts.hosts
      }
      if hosts.isEmpty, let host = environment["PGHOST"] {
        hosts = host.split(separator: ",").map(String.init)
      }
    }
    // No host at all: libpq's default, the Unix socket. A service names its hosts in a file
    // journal does not read (its hostaddr may be anywhere): with one, only an address that
    // names both a local host and a local hostaddr is taken for local.
    let service = parts.keywords["service"] ?? environment["PGSERVICE"]
    let local =
      service == nil
      ? hosts.allSatisfy(Self.isLocal)
      : parts.keywords["host"].map { Self.isLocal($0) } == true
        && parts.keywords["hostaddr"].map { Self.isLocal($0) } == true
    let mode = parts.keywords["sslmode"]
    var conninfo = text
    if !local && mode != "verify-full" {
      if let mode { throw .badAddress(reason: .weakTLS(mode: mode)) }
      conninfo = Self.adding("sslmode", "verify-full", to: conninfo, isURL: isURL)
    }
    // A server that does not answer is given up on after 10 s, unless the person chose.
    if let chosen = parts.keywords["connect_timeout"] ?? environment["PGCONNECT_TIMEOUT"] {
      let seconds = Int(chosen.trimmingCharacters(in: .whitespaces)) ?? 10
      connectTimeout = seconds <= 0 ? SyncBounds.standard.connect : max(seconds, 2) * 1000
    } else {
      conninfo = Self.adding("connect_timeout", "10", to: conninfo, isURL: isURL)
      connectTimeout = SyncBounds.standard.connect
    }
    self.conninfo = conninfo
    given = text
  }

  static func adding(_ key: String, _ value: String, to text: String, isURL: Bool) -> String {
    isURL
      ? text + (text.contains("?") ? "&" : "?") + "\(key)=\(value)"
      : text + " \(key)=\(value)"
  }

  /// Loopback addresses (`localhost`, 127.0.0.0/8 written as an address, ::1) and Unix-socket
  /// directories. A name that only starts like one (`127.example.org`) is not.
  static func isLocal(_ host: String) -> Bool {
    // Host names are case-insensitive: LOCALHOST is localhost, as the resolver takes it.
    let host = (host.removingPercentEncoding ?? host).lowercased()
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
        // libpq decodes the keyword too (pass%77ord is password).
        guard kv.count == 2, let key = String(kv[0]).removingPercentEncoding else {
          throw .badAddress(reason: .unreadable)
        }
        parts.keywords[key] = String(kv[1]).removingPercentEncoding ?? String(kv[1])
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

  /// keyword=value pairs, values optionally in single quotes; a backslash escapes the next
  /// character, quoted or not.
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
        // As libpq reads it: a backslash takes the next character as it is, even a space
        // (so `dbname=a\ sslmode=require` is one value, and a backslash at the very end
        // would take the space journal adds after it: refused).
        while let c = characters.first, c != " ", c != "\t" {
          characters = characters.dropFirst()
          if c == "\\" {
            guard let next = characters.first else { throw .badAddress(reason: .unreadable) }
            value.append(next)
            characters = characters.dropFirst()
          } else {
            value.append(c)
          }
        }
      }
      parts.keywords[String(key)] = value
    }
    guard !parts.keywords.isEmpty else { throw .badAddress(reason: .unreadable) }
    return parts
  }
}
