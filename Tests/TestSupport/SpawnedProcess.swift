import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// A child process started with `posix_spawn`, every descriptor of the test process but its
/// standard input closed in it. Its standard output and error go to one pipe, or to one each,
/// read as they come (`ChildOutput`). A child never outlives its value: `deinit` kills it.
///
/// Not Foundation's `Process`: its `run()` walks `/proc/self/fd` with a fixed 256-byte copy of
/// each entry, which reads past glibc's directory buffer when the last entry ends it; with many
/// descriptors open (suites holding sockets while others start servers) that read crossed into
/// an unmapped page and crashed the test process (scripts/asan.supp has the same finding).
package final class SpawnedProcess: Sendable {
    package let processIdentifier: Int32
    /// Standard output, and standard error too unless it has a pipe of its own.
    package let output: ChildOutput
    /// Standard error, with `separateStandardError`.
    package let errorOutput: ChildOutput?
    /// Set once the child was reaped, with its wait status.
    private let exit = ExitStatus()

    /// Starts `executable` (a path: no search of `PATH`). `environment` nil passes the test
    /// process's on; otherwise the child gets exactly the one given, as `Process.environment`
    /// does. With `holdingOutputAfter`, `output` stops reading once it holds, until
    /// `output.release()`, so that the pipe fills behind the child.
    package init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        separateStandardError: Bool = false, holdingOutputAfter: (@Sendable (String) -> Bool)? = nil
    ) throws(SpawnError) {
        guard let closeFrom = Self.closeFrom else { throw SpawnError(call: "posix_spawn_file_actions_addclosefrom_np", code: ENOSYS) }
        let outputEnds = try Self.pipe()
        let errorEnds: [Int32]?
        do {
            errorEnds = separateStandardError ? try Self.pipe() : nil
        } catch {
            for end in outputEnds { close(end) }
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outputEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, (errorEnds ?? outputEnds)[1], 2)
        // Nothing else of the test process's (its sockets, other children's pipes) reaches the child.
        _ = closeFrom(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let result =
            if let envp { posix_spawn(&pid, executable, &actions, nil, argv, envp) } else { posix_spawn(&pid, executable, &actions, nil, argv, environ) }
        close(outputEnds[1])
        if let errorEnds { close(errorEnds[1]) }
        guard result == 0 else {
            close(outputEnds[0])
            if let errorEnds { close(errorEnds[0]) }
            throw SpawnError(call: "posix_spawn", code: result)
        }
        processIdentifier = pid
        output = ChildOutput(reading: outputEnds[0], holdingAfter: holdingOutputAfter)
        errorOutput = errorEnds.map { ChildOutput(reading: $0[0], holdingAfter: nil) }
        // Reaped the moment it exits, as Foundation's `Process` does: a zombie left for later
        // stalls Swift Testing's exit-test monitor, which waits on any child of the process.
        let (exit, child) = (self.exit, pid)
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            exit.withLock { $0 = status }
        }
    }

    /// Both ends close on exec: a child started by other means must not hold a write end, or
    /// the pipe would not end when this child does.
    private static func pipe() throws(SpawnError) -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw SpawnError(call: "pipe", code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, looked up at run time: the Swift
    /// Glibc module does not declare it. Without it spawning fails rather than leak descriptors.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    deinit {
        kill()
        // A reader held by `holdingOutputAfter` would otherwise wait forever with its pipe open.
        output.release()
    }

    /// False once the child has exited (and was reaped).
    package var isRunning: Bool {
        exit.withLock { $0 == nil }
    }

    /// As Foundation's `Process` has it: the exit code, or the number of the signal that ended
    /// the child; nil while it runs.
    package var terminationStatus: Int32? {
        exit.withLock { status in
            guard let status else { return nil }
            return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
        }
    }

    /// Waits until the child exited and was reaped; its `terminationStatus`, or nil if it still
    /// ran after `timeout`.
    package func waitForExit(timeout: Duration) -> Int32? {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while isRunning && clock.now < end { usleep(2_000) }
        return terminationStatus
    }

    /// Waits as long as the child runs; its `terminationStatus`.
    @discardableResult
    package func waitUntilExit() -> Int32 {
        while true {
            if let status = terminationStatus { return status }
            usleep(2_000)
        }
    }

    /// SIGKILL, which ends a frozen or stuck child too, then waits until it is reaped; nothing
    /// once it was reaped, when its process id may be another process's.
    package func kill() {
        guard isRunning else { return }
        _ = Glibc.kill(processIdentifier, SIGKILL)
        waitUntilExit()
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
