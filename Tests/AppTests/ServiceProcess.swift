import Foundation

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// The real `product-details` executable started as a child process on an ephemeral port, for
/// tests of what only a process has: signals, exit codes, start-up validation. The child is
/// killed, if still running, when this value goes away.
final class ServiceProcess: Sendable {
    let process: SpawnedProcess
    let port: Int

    /// The executable next to the test bundle (`swift build --build-tests` builds both).
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("product-details")
    }

    /// Starts the service and waits for its "listening" log line. With `holdingOutput`, nothing
    /// more is read from its standard output after that line until `releaseOutput()`: the pipe
    /// fills as it would behind a log reader that does not keep up.
    /// `executable` and `arguments` start it some other way (through `setpriv`, say), as long as
    /// the process started becomes the service.
    init(
        executable: URL = ServiceProcess.executable, arguments: [String] = [], environment: [String: String],
        holdingOutput: Bool = false
    ) throws {
        let started: @Sendable (String) -> Bool = { listeningPort(in: $0) != nil }
        let process = try SpawnedProcess(
            executable: executable.path, arguments: arguments,
            environment: ["HOST": "127.0.0.1", "PORT": "0", "LOOPS": "2"].merging(environment) { _, new in new },
            holdingOutputAfter: holdingOutput ? started : nil)
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = listeningPort(in: process.output.text)
            if found == nil { usleep(2_000) }
        }
        guard let found else {
            // SIGKILL: a process that never started may not heed SIGTERM (one stuck re-executing
            // itself outlived the test that way).
            process.kill()
            throw ServiceProcessError.didNotStart(process.output.untilEnd())
        }
        port = found
    }

    var log: String { process.output.text }

    /// Reads the output on from where `holdingOutput` stopped.
    func releaseOutput() {
        process.output.release()
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to exit; nil if it did not within `seconds` (it is killed then).
    func waitForExit(seconds: Double) -> Int32? {
        guard let status = process.waitForExit(timeout: .seconds(seconds)) else {
            process.kill()
            return nil
        }
        return status
    }
}

enum ServiceProcessError: Error {
    case didNotStart(String)
}

/// The port from the service's `"msg":"listening"` start-up line.
private func listeningPort(in log: String) -> Int? {
    for line in log.split(separator: "\n") where line.contains(#""msg":"listening""#) {
        guard let range = line.range(of: #""port":""#) else { continue }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }
    return nil
}
