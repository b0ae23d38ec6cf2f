import Foundation
import TestSupport

/// The service run to its end, for start-ups that must fail, and for answers it gives without
/// starting.
struct FinishedProcess {
    let status: Int32
    let standardOutput: String
    let standardError: String

    /// `environment` nil passes the test process's on; otherwise the service gets just that one.
    static func run(arguments: [String] = [], environment: [String: String]?) throws -> FinishedProcess {
        let process = try SpawnedProcess(
            executable: ServiceProcess.executable.path, arguments: arguments, environment: environment,
            separateStandardError: true)
        let status = process.waitUntilExit()
        return FinishedProcess(
            status: status, standardOutput: process.output.untilEnd(), standardError: process.errorOutput?.untilEnd() ?? "")
    }
}
