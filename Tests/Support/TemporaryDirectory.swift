import Foundation

/// A fresh directory under the system's temporary directory, removed when the last
/// reference to it goes, or earlier at `remove()`.
package final class TemporaryDirectory: Sendable {
    package let path: String

    /// `prefix` starts the directory's name, so one left behind says whose it was.
    package init(prefix: String = "juice-tests-") throws {
        path = FileManager.default.temporaryDirectory.path + "/" + prefix + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    package func file(_ name: String) -> String { path + "/" + name }

    /// Removes the directory and everything in it; safe more than once.
    package func remove() {
        // Permission tests may leave read-only directories behind; make them writable first.
        _ = chmod(path, 0o700)
        if let contents = FileManager.default.enumerator(atPath: path) {
            for case let name as String in contents { _ = chmod(file(name), 0o700) }
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}
