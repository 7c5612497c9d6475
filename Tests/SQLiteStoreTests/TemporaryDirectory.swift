import Foundation

/// A fresh directory under the system's temporary directory, removed on `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let base = NSTemporaryDirectory() + "juice-sqlite-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        // Permission tests may leave read-only directories behind; make them writable first.
        _ = chmod(path, 0o700)
        if let contents = FileManager.default.enumerator(atPath: path) {
            for case let name as String in contents { _ = chmod(file(name), 0o700) }
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The bytes of a file, to show a refused file was left as it was.
func contents(of path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}
