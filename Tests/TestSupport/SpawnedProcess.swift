import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// A child process started with `posix_spawn`, its standard output and error into one pipe, every
/// other descriptor closed in the child.
///
/// Not Foundation's `Process`: its `run()` walks `/proc/self/fd` with a fixed 256-byte copy of
/// each entry, which reads past glibc's directory buffer when the last entry ends it; with many
/// descriptors open (suites holding sockets while others start servers) that read crossed into
/// an unmapped page and crashed the test process (scripts/asan.supp has the same finding).
package final class SpawnedProcess: Sendable {
    package let processIdentifier: Int32
    /// The read end of the output pipe; closed in `deinit`.
    private let output: Int32
    /// Set once the child was reaped, with its wait status.
    private let exit = ExitStatus()

    package init(executable: String, arguments: [String]) throws(SpawnError) {
        guard let closeFrom = Self.closeFrom else { throw SpawnError(call: "posix_spawn_file_actions_addclosefrom_np", code: ENOSYS) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpawnError(call: "pipe", code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        // Nothing else of the test process's (its sockets, other children's pipes) reaches the child.
        _ = closeFrom(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            throw SpawnError(call: "posix_spawn", code: result)
        }
        processIdentifier = pid
        output = ends[0]
        // Reaped the moment it exits, as Foundation's `Process` does: a zombie left for later
        // stalls Swift Testing's exit-test monitor, which waits on any child of the process.
        let (exit, child) = (self.exit, pid)
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            exit.withLock { $0 = status }
        }
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, looked up at run time: the Swift
    /// Glibc module does not declare it. Without it spawning fails rather than leak descriptors.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    deinit {
        close(output)
    }

    /// False once the child has exited (and was reaped).
    package var isRunning: Bool {
        exit.withLock { $0 == nil }
    }

    /// The child's exit code once it exited by itself; nil while it runs or when a signal ended it.
    package var exitCode: Int32? {
        exit.withLock { status in
            guard let status, status & 0x7f == 0 else { return nil }
            return (status >> 8) & 0xff
        }
    }

    /// Everything the child wrote, once it is gone (reads to the end of the pipe).
    package func readOutput() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The child's wait status once reaped, shared with the thread that waits for it.
private final class ExitStatus: Sendable {
    private let status = Locked<Int32?>(nil)

    func withLock<T>(_ body: (inout Int32?) -> T) -> T {
        status.withLock { body(&$0) }
    }
}

package struct SpawnError: Error, Sendable {
    package let call: String
    package let code: Int32
}
