#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

/// Which `Host` names the server answers for, and which peers are reverse proxies whose
/// `X-Forwarded-For`, `-Proto` and `-Host` headers are believed.
///
/// A page on `evil.example` whose name the attacker re-points at 127.0.0.1 (DNS rebinding)
/// can reach a server on this machine from a visitor's browser, but its requests still say
/// `Host: evil.example`: those are refused (421). Names always answered: IP literals (a
/// rebinding needs a name) and `localhost`; others only when listed.
///
/// ```swift
/// var configuration = HTTPServer.Configuration(host: "0.0.0.0", port: 8080)
/// configuration.hostPolicy = HostPolicy(allowedNames: ["invoices.example.com"], trustedProxies: ["127.0.0.1"])
/// ```
public struct HostPolicy: Sendable {
    /// Names answered besides IP literals and `localhost`: exact (`invoices.example.com`), or
    /// with a leading dot a domain and every name under it (`.example.com`).
    public var allowedNames: [String]
    /// Addresses (IP literals) of reverse proxies in front of the server: from them, the
    /// client's address, scheme and host are read from `X-Forwarded-For`, `-Proto`, `-Host`.
    public var trustedProxies: [String]
    /// Added to the 421 answer: how to make the server answer a name (`--allowed-host NAME`).
    public var refusalHint: String

    public init(allowedNames: [String] = [], trustedProxies: [String] = [], refusalHint: String = "") {
        self.allowedNames = allowedNames.map { Self.normalized($0) }
        self.trustedProxies = trustedProxies.compactMap(Self.canonicalAddress)
        self.refusalHint = refusalHint
    }

    /// Whether a `Host` value (a name or an address, with or without a port) is answered.
    public func allows(host: String) -> Bool {
        let name = Self.normalized(Self.withoutPort(host))
        if name.isEmpty { return false }
        if Self.canonicalAddress(name) != nil || name == "localhost" || name.hasSuffix(".localhost") { return true }
        return allowedNames.contains { allowed in
            allowed.hasPrefix(".") ? (name.hasSuffix(allowed) || name == String(allowed.dropFirst())) : name == allowed
        }
    }

    /// What a request's headers say about where it came from, believing `X-Forwarded-*` only
    /// when the peer is a trusted proxy.
    func origin(peer: String?, headers: HTTPFields) -> RequestOrigin {
        let host = headers[Self.hostField]
        guard let peer, let canonical = Self.canonicalAddress(peer), trustedProxies.contains(canonical) else {
            return RequestOrigin(clientAddress: peer, isSecure: false, host: host)
        }
        // The proxy appends the address it saw: the rightmost one not itself a trusted proxy
        // is the client (entries further left were written by the client, and may be lies).
        let chain = headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }
            .map { String($0.trimmingSpaces()) }
        let client = chain.reversed().first { Self.canonicalAddress($0).map { !trustedProxies.contains($0) } ?? true }
        let scheme = headers[Self.forwardedProto]?.split(separator: ",").last?.trimmingSpaces().lowercased()
        let forwardedHost = headers[Self.forwardedHost]?.split(separator: ",").last.map { String($0.trimmingSpaces()) }
        return RequestOrigin(clientAddress: client ?? peer, isSecure: scheme == "https", host: forwardedHost ?? host)
    }

    static let hostField = HTTPField.Name("Host")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!

    private static func normalized(_ name: String) -> String {
        var name = Substring(name).trimmingSpaces().lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// `host` without a `:port`; an IPv6 literal loses its brackets.
    private static func withoutPort(_ host: String) -> String {
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            return String(host[host.index(after: host.startIndex)..<end])
        }
        if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") { return String(host[..<colon]) }
        return host
    }

    /// Whether `text` is an IPv4 or IPv6 address literal.
    public static func isAddress(_ text: String) -> Bool { parse(text) != nil }

    /// Whether `host` names this machine only: `localhost`, 127.0.0.0/8 or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if Substring(host).trimmingSpaces().lowercased() == "localhost" { return true }
        switch parse(host) {
        case .v4(let address)?: return UInt32(bigEndian: address.s_addr) >> 24 == 127
        case .v6(var address)?: return withUnsafeBytes(of: &address) { $0.prefix(15).allSatisfy { $0 == 0 } && $0[15] == 1 }
        case nil: return false
        }
    }

    /// The address in one spelling (`::1` for `0:0::1`), or nil when `text` is not an IP literal.
    static func canonicalAddress(_ text: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>?
        switch parse(text) {
        case .v4(var address)?: written = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
        case .v6(var address)?: written = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
        case nil: return nil
        }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private enum Literal {
        case v4(in_addr)
        case v6(in6_addr)
    }

    /// An IPv4 or IPv6 literal (IPv6 with or without brackets), as `inet_pton` reads it.
    private static func parse(_ text: String) -> Literal? {
        var literal = String(Substring(text).trimmingSpaces())
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 { return .v4(v4) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 { return .v6(v6) }
        return nil
    }
}

/// Where a request came from, as far as the server can tell.
struct RequestOrigin: Sendable {
    let clientAddress: String?
    let isSecure: Bool
    let host: String?
}
