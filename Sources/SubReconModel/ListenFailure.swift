#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server (`notifications serve`, `simulator`) could not listen on the address it was given,
/// in the operator's words rather than the socket call's (`bind(descriptor:ptr:bytes:) … errno: 98`).
public struct ListenFailure: Error, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The socket call's errno, when it failed with one.
    public var errno: Int32?
    /// What failed, as the library said it, for the causes not named here.
    public var detail: String
    /// The flag that chooses the port (`--port`).
    public var portFlag: String

    public init(host: String, port: Int, errno: Int32?, detail: String, portFlag: String = "--port") {
        self.host = host
        self.port = port
        self.errno = errno
        self.detail = detail
        self.portFlag = portFlag
    }

    public var description: String {
        let address = "\(host):\(port)"
        switch errno {
        case EADDRINUSE:
            return "cannot listen on \(address): another process is already listening on port \(port) "
                + "(an earlier one still running?); stop it, or choose another \(portFlag)"
        case EACCES, EPERM:
            return "cannot listen on \(address): this user may not listen on port \(port) "
                + "(ports below 1024 need privileges); choose another \(portFlag)"
        case EADDRNOTAVAIL:
            return "cannot listen on \(address): \(host) is not an address of this machine"
        default:
            return "cannot listen on \(address): \(detail)"
        }
    }
}
