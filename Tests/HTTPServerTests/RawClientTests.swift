import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TestSupport

@Suite("Test client")
struct RawClientTests {
    /// A refused connect used to close its descriptor twice (once in `init`, again in the `deinit`
    /// a failed class init still runs), and the second close(2) hit whatever another thread had
    /// opened under that number in between: a canary pipe here, an event loop's eventfd in the
    /// suite (CI's message-less SIGABRT). The canary thread keeps opening pipes and checks each
    /// is still open; before the fix it saw one closed under it within a few hundred refusals.
    @Test func aRefusedConnectClosesItsDescriptorOnce() async throws {
        let refusing = try RefusingLoopbackPort()
        let port = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        let stop = Atomic<Bool>(false)
        let stolen = Atomic<Int>(0)
        let canary = Thread {
            while !stop.load(ordering: .relaxed) {
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { continue }
                for _ in 0..<50 where fcntl(ends[0], F_GETFD) == -1 || fcntl(ends[1], F_GETFD) == -1 {
                    stolen.add(1, ordering: .relaxed)
                    break
                }
                Glibc.close(ends[0])
                Glibc.close(ends[1])
            }
        }
        canary.start()
        for _ in 0..<3_000 {
            _ = try? RawClient(port: port)
        }
        stop.store(true, ordering: .relaxed)
        #expect(stolen.load(ordering: .relaxed) == 0)
    }
}
