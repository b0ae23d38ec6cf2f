@testable import App
import Foundation
import Testing

@Suite struct ProcessStatusTests {
    /// proc(5): the command name may hold spaces and parentheses; fields count from after the last `)`.
    @Test func readsCPUMemoryAndStartFromAStatLine() throws {
        let stat = "4242 (odd) name)) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 3 0 123400 104857600 2560 18446744073709551615"
        let status = try #require(ProcessStatus(stat: stat, ticksPerSecond: 100, pageSize: 4096))
        #expect(status.cpuSeconds == 3)
        #expect(status.startTicksAfterBoot == 1234)
        #expect(status.virtualBytes == 104_857_600)
        #expect(status.residentBytes == 2560 * 4096)
        #expect(ProcessStatus(stat: "4242 (cut short) S 1", ticksPerSecond: 100, pageSize: 4096) == nil)
    }

    @Test func readsTheBootTime() {
        #expect(ProcessStatus.bootTime(procStat: "cpu  1 2 3\nintr 5\nbtime 1764800000\nprocesses 9\n") == 1_764_800_000)
        #expect(ProcessStatus.bootTime(procStat: "cpu  1 2 3\n") == nil)
    }
}
