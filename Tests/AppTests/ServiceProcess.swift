import Foundation
import Locking
import Synchronization

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// The real `product-details` executable started as a child process on an ephemeral port, for
/// tests of what only a process has: signals, exit codes, start-up validation.
final class ServiceProcess: Sendable {
    let process: Process
    let port: Int
    private let output: OutputCollector
    private let pipe: Pipe

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
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ["HOST": "127.0.0.1", "PORT": "0", "LOOPS": "2"].merging(environment) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = OutputCollector()
        pipe.fileHandleForReading.readabilityHandler = Self.reader(into: output, holdingAfterStart: holdingOutput)
        try process.run()
        self.process = process
        self.output = output
        self.pipe = pipe
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = output.port()
            if found == nil { usleep(2_000) }
        }
        guard let found else {
            // SIGKILL: a process that never started may not heed SIGTERM (one stuck re-executing
            // itself outlived the test that way).
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ServiceProcessError.didNotStart(output.text)
        }
        port = found
    }

    var log: String { output.text }

    /// Reads the output on from where `holdingOutput` stopped.
    func releaseOutput() {
        pipe.fileHandleForReading.readabilityHandler = Self.reader(into: output, holdingAfterStart: false)
    }

    private static func reader(into output: OutputCollector, holdingAfterStart: Bool) -> @Sendable (FileHandle) -> Void {
        { handle in
            let data = handle.availableData
            if !data.isEmpty { output.append(data) }
            if holdingAfterStart, output.port() != nil { handle.readabilityHandler = nil }
        }
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to exit; nil if it did not within `seconds`.
    func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

enum ServiceProcessError: Error {
    case didNotStart(String)
}

/// Collects a child's output lines from the pipe's reader thread.
private final class OutputCollector: Sendable {
    private let buffer = Locked<String>("")

    func append(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        buffer.withLock { $0 += text }
    }

    var text: String { buffer.withLock { $0 } }

    /// The port from the `"msg":"listening"` start-up line.
    func port() -> Int? {
        for line in text.split(separator: "\n") where line.contains(#""msg":"listening""#) {
            guard let range = line.range(of: #""port":""#) else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            return Int(digits)
        }
        return nil
    }
}
