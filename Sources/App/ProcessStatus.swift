#if canImport(Glibc)
import Glibc
#endif

/// The process's own numbers as Linux keeps them in `/proc`, read when asked (at scrape time).
/// Reading `/proc` is served from kernel memory, never from a disk, so a loop may do it.
struct ProcessStatus: Equatable {
    var cpuSeconds: Double
    var residentBytes: Double
    var virtualBytes: Double
    /// Seconds after the machine booted, from `/proc/self/stat`; see ``startTime(bootTime:)``.
    var startTicksAfterBoot: Double

    /// Fields of `/proc/self/stat` (proc(5)): the command name in parentheses may hold spaces,
    /// so the fields are counted from after its closing parenthesis (field 3 onwards).
    init?(stat: String, ticksPerSecond: Double, pageSize: Double) {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        func field(_ number: Int) -> Double? {
            let index = number - 3
            return fields.indices.contains(index) ? Double(fields[index]) : nil
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23), let pages = field(24) else {
            return nil
        }
        cpuSeconds = (user + system) / ticksPerSecond
        startTicksAfterBoot = start / ticksPerSecond
        virtualBytes = virtual
        residentBytes = pages * pageSize
    }

    /// `btime` of `/proc/stat`: when the machine booted, in seconds since the epoch.
    static func bootTime(procStat: String) -> Double? {
        for line in procStat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count))
        }
        return nil
    }

    static func current() -> ProcessStatus? {
        guard let stat = readFile("/proc/self/stat") else { return nil }
        return ProcessStatus(stat: stat, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))), pageSize: Double(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// Open file descriptors: the entries of `/proc/self/fd` (the directory's own included, as
    /// the Prometheus client libraries count it).
    static func openDescriptors() -> Int? {
        entryCount(ofDirectory: "/proc/self/fd")
    }

    /// The entries of a directory, `.` and `..` left out.
    static func entryCount(ofDirectory path: String) -> Int? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        // `d_name` is declared 256 bytes long, but a record in readdir's buffer is only as long
        // as its name: copying the field whole reads past the last record of a full buffer. So
        // the name is read through a pointer, byte by byte up to its NUL.
        let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
        let dot = UInt8(ascii: ".")
        var count = 0
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            let isDotOrDotDot = name[0] == dot && (name[1] == 0 || (name[1] == dot && name[2] == 0))
            if !isDotOrDotDot { count += 1 }
        }
        return count
    }

    /// The soft limit on open file descriptors (`ulimit -n`).
    static func maxDescriptors() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return limit.rlim_cur == rlim_t.max ? nil : Int(limit.rlim_cur)
    }

    /// A whole `/proc` file (their sizes read as 0, so it is read until the end).
    static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
