import Foundation

/// The service run to its end, for start-ups that must fail.
struct FinishedProcess {
    let status: Int32
    let standardOutput: String
    let standardError: String

    static func run(arguments: [String] = [], environment: [String: String]) throws -> FinishedProcess {
        let process = Process()
        process.executableURL = ServiceProcess.executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read before waiting, so a full pipe cannot stall the child.
        let errorText = error.fileHandleForReading.readDataToEndOfFile()
        let outputText = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return FinishedProcess(
            status: process.terminationStatus, standardOutput: String(decoding: outputText, as: UTF8.self),
            standardError: String(decoding: errorText, as: UTF8.self))
    }
}
