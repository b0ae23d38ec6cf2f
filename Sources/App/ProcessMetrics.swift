import Metrics

/// The `process_*` series the Prometheus client libraries export (CPU, memory, file
/// descriptors, start time), read from `/proc` at scrape time, and `product_details_build_info`.
/// Unprefixed, so the usual dashboards and alerts find them.
struct ProcessMetrics {
    let registry = MetricsRegistry()

    init(version: String) {
        registry.counter("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", readAmount: {
            ProcessStatus.current()?.cpuSeconds ?? 0
        })
        registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") {
            ProcessStatus.current()?.residentBytes ?? 0
        }
        registry.gauge("process_virtual_memory_bytes", help: "Virtual memory size in bytes.") {
            ProcessStatus.current()?.virtualBytes ?? 0
        }
        registry.gauge("process_open_fds", help: "Number of open file descriptors.") {
            Double(ProcessStatus.openDescriptors() ?? 0)
        }
        if let limit = ProcessStatus.maxDescriptors() {
            registry.gauge("process_max_fds", help: "Maximum number of open file descriptors.") { Double(limit) }
        }
        // Fixed for the life of the process: worked out once.
        if let status = ProcessStatus.current(),
           let boot = ProcessStatus.readFile("/proc/stat").flatMap(ProcessStatus.bootTime(procStat:)) {
            let start = boot + status.startTicksAfterBoot
            registry.gauge("process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.") { start }
        }
        registry.gauge("product_details_build_info", help: "Always 1; the labels say which build runs.", labels: [("version", version)]) { 1 }
    }
}
