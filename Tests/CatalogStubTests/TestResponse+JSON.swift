import Foundation
import TestSupport

extension TestResponse {
    /// The body through Foundation's parser (the reference the stub's writer must satisfy).
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
    }
}
