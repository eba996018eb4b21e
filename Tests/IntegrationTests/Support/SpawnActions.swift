import Foundation

/// posix_spawn's children inherit every descriptor without close-on-exec, listening sockets of
/// the in-process simulator among them: a child (a `subrecon` run, a PostgreSQL server started by
/// a script) would keep a stopped simulator's port taken. glibc's closefrom action (2.34+) closes
/// them all in the child; Swift's Glibc module does not export it, so it is looked up by name.
enum SpawnActions {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// Adds "close every descriptor from 3 up" to `actions`.
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        guard let closeFrom else { preconditionFailure("glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)") }
        _ = closeFrom(&actions, 3)
    }
}
