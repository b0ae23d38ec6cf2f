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

    /// Found by AddressSanitizer (`make test-asan`) in `/proc/self/fd` of a test process with many
    /// sockets open: each `d_name` was copied whole, 256 bytes, past the end of the last record
    /// of readdir's full buffer. Names of 200 bytes fill its 32 KiB with 146 records and leave
    /// less than the over-read behind the last: under the sanitizer this failed before the fix.
    @Test func countsADirectoryWhoseRecordsFillReaddirsBuffer() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pd-entries-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = 400
        for index in 0..<files {
            let name = String(format: "%05d", index) + String(repeating: "x", count: 195)
            #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: nil))
        }
        #expect(ProcessStatus.entryCount(ofDirectory: directory.path) == files)
        #expect(ProcessStatus.entryCount(ofDirectory: directory.appendingPathComponent("absent").path) == nil)
        let descriptors = try #require(ProcessStatus.openDescriptors())
        #expect(descriptors > 3)
    }

    @Test func readsTheBootTime() {
        #expect(ProcessStatus.bootTime(procStat: "cpu  1 2 3\nintr 5\nbtime 1764800000\nprocesses 9\n") == 1_764_800_000)
        #expect(ProcessStatus.bootTime(procStat: "cpu  1 2 3\n") == nil)
    }
}
