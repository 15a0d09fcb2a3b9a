#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The address the daemon binds, built from a host literal and a port.
enum SocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    /// - Throws: `HTTPServer.Error.invalidHost` for anything but an IP literal or `localhost`
    ///   (names are not resolved: a server binds a known interface).
    init(host: String, port: Int) throws(HTTPServer.Error) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            self = .v4(v4)
            return
        }
        let bare = literal.hasPrefix("[") && literal.hasSuffix("]") ? String(literal.dropFirst().dropLast()) : literal
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            self = .v6(v6)
            return
        }
        throw .invalidHost(host)
    }

    var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// Calls `body` with a pointer to the sockaddr, valid only during the call.
    func withPointer<T>(_ body: (UnsafeMutableRawPointer) -> T) -> T {
        switch self {
        case .v4(var address): withUnsafeMutablePointer(to: &address) { body(UnsafeMutableRawPointer($0)) }
        case .v6(var address): withUnsafeMutablePointer(to: &address) { body(UnsafeMutableRawPointer($0)) }
        }
    }
}
