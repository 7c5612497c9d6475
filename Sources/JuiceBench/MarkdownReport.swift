import Foundation

/// `juice-bench --markdown`: the figures of one run as the performance article's table,
/// headed by the date, the machine and the build, so the article is generated, never
/// written by hand. Each section's rows keep the order its bench returns them in, which
/// puts every figure beside the baseline it was measured against in the same run.
enum MarkdownReport {
    static func render(_ sections: [(String, [(String, Double)])], command: String) -> String {
        var text = "| run | |\n|---|---|\n"
        text += "| date | \(ISO8601DateFormatter().string(from: Date())) |\n"
        text += "| machine | \(machine()) |\n"
        text += "| build | \(build()) |\n"
        text += "| command | `juice-bench \(command) --markdown` |\n"
        for (name, rows) in sections {
            text += "\n### \(name)\n\n| figure | value |\n|---|---:|\n"
            for (figure, value) in rows {
                text += "| \(figure) | \(value.isFinite ? Measure.format(value, decimals: 2) : "–") |\n"
            }
        }
        return text
    }

    /// The CPU model, the cores, the memory and the kernel.
    private static func machine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(model), \(cores) cores, \(Measure.format(memory, decimals: 0)) GiB, Linux \(release)"
    }

    /// The configuration this bench was compiled in, and the commit when run in a checkout.
    private static func build() -> String {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["rev-parse", "--short", "HEAD"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return configuration }
        let commit = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let trimmed = commit.trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 ? "\(configuration), commit \(trimmed)" : configuration
    }
}
