import Foundation

/// The `juice` executable built beside this test bundle (for test targets that
/// depend on the `juice` product and run it as a real process).
package let juiceExecutable: String = {
    let beside: (URL?) -> String? = { $0?.deletingLastPathComponent().appendingPathComponent("juice").path }
    let selfPath = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let candidates: [String?] = [
        beside(Bundle.main.executableURL),
        beside(selfPath.map { URL(fileURLWithPath: $0) }),
        beside(Bundle.main.bundleURL),
    ]
    return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "juice"
}()
