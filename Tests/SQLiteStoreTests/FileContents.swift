import Foundation

/// The bytes of a file, to show a refused file was left as it was.
func contents(of path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}
