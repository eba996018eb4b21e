import FlyingFox
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Drops a client connection without answering.
///
/// FlyingFox gives handlers no access to the connection's socket, so on Linux this finds the
/// server-side descriptor in `/proc/self/fd` by its (local port, peer port) pair, sets
/// `SO_LINGER` to 0 and shuts it down: the client reads EOF (or ECONNRESET) with no response
/// bytes, and FlyingFox's own write then fails and it closes the socket (sending RST). The
/// descriptor is only shut down, never closed here, so FlyingFox still owns it.
enum ConnectionResetter {
    /// True when the connection was found and shut down.
    static func reset(serverPort: UInt16, peer: HTTPRequest.Address?) -> Bool {
        #if os(Linux)
        let peerPort: UInt16
        switch peer {
        case .ip4(_, let port)?, .ip6(_, let port)?:
            peerPort = port
        default:
            return false
        }
        guard serverPort != 0,
              let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return false }
        for name in names {
            guard let fd = Int32(name),
                  port(of: fd, peer: false) == serverPort,
                  port(of: fd, peer: true) == peerPort
            else { continue }
            var noLinger = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &noLinger, socklen_t(MemoryLayout<linger>.size))
            return shutdown(fd, Int32(SHUT_RDWR)) == 0
        }
        return false
        #else
        return false
        #endif
    }

    #if os(Linux)
    /// Local (or peer) TCP port of a descriptor, nil when it is not a connected inet socket.
    private static func port(of fd: Int32, peer: Bool) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                peer ? getpeername(fd, address, &length) : getsockname(fd, address, &length)
            }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }
    #endif
}
