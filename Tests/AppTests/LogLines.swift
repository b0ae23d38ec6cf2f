@testable import Logging
import App
import Foundation
import Locking

/// The lines a test's log collector received (in batches, written by the log writer's thread:
/// complete once the app has stopped), parsed.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])

    var destination: LogDestination {
        .collector { [self] batch in
            let text = String(decoding: batch, as: UTF8.self)
            lines.withLock { $0.append(contentsOf: text.split(separator: "\n").map(String.init)) }
        }
    }

    var objects: [[String: Any]] {
        lines.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The `"msg":"request"` lines with this status.
    func requests(status: Int) -> [[String: Any]] {
        objects.filter { $0["msg"] as? String == "request" && $0["status"] as? Int == status }
    }
}
