import Foundation
@testable import Fleet
import Testing

/// What Redis Cluster needs of a script, read from the scripts' text: each is held to one slot
/// by Redis 7 (the `#!lua` line), and touches keys only through `KEYS`, never a name it builds.
struct SharedCacheScriptsTests {
    static let scripts: [(name: String, body: String)] = [
        ("read", SharedCacheScripts.read.body), ("claim", SharedCacheScripts.claim.body),
        ("store", SharedCacheScripts.store.body), ("replace", SharedCacheScripts.replace.body),
        ("renew", SharedCacheScripts.renew.body),
        ("release", SharedCacheScripts.release.body), ("publish", SharedCacheScripts.publish.body),
        ("history", SharedCacheScripts.history.body),
    ]
    /// Commands whose first argument is not a key.
    static let keyless: Set<String> = ["TIME", "SPUBLISH"]

    @Test(arguments: scripts.map(\.name))
    func everyKeyComesFromKEYS(name: String) throws {
        let body = try #require(Self.scripts.first { $0.name == name }?.body)
        #expect(body.hasPrefix("#!lua\n"), "without flags Redis does not hold a script to its declared slot")
        let calls = body.components(separatedBy: "redis.call(").dropFirst()
        #expect(!calls.isEmpty)
        for call in calls {
            let arguments = call.prefix { $0 != ")" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let command = arguments[0].trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            if Self.keyless.contains(command) { continue }
            #expect(arguments.count > 1 && arguments[1].hasPrefix("KEYS["), "\(name): \(command) on \(arguments.dropFirst().first ?? "nothing")")
        }
    }
}
