/// Path arithmetic on strings, as `NSString` did it (`deletingLastPathComponent`,
/// `appendingPathComponent`, `standardizingPath`), which FoundationEssentials does not
/// offer publicly. Lexical only: nothing here touches the file system.
package enum PathText {
    /// The path without its last component: "/a/b" → "/a", "/a" → "/", "a" → "".
    package static func parent(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        if slash == text.startIndex { return "/" }
        var parent = text[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }

    /// The last component: "/usr/bin/cat" → "cat", "dir/" → "dir", "/" → "/", "" → "".
    package static func lastComponent(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard text != "/", let slash = text.lastIndex(of: "/") else { return String(text) }
        return String(text[text.index(after: slash)...])
    }

    /// `component` appended to `path` with one "/" between them.
    package static func join(_ path: String, _ component: String) -> String {
        if path.isEmpty { return component }
        if component.isEmpty { return path }
        var head = Substring(path)
        while head.count > 1, head.hasSuffix("/") { head = head.dropLast() }
        // String + String, not a generic append of a Substring (start-up rule "no
        // conformance lookups at start", the Performance article).
        let tail = String(component.drop { $0 == "/" })
        return head == "/" ? "/" + tail : String(head) + "/" + tail
    }

    /// Empty and "." components removed, and in an absolute path ".." taken back
    /// against the component before it; no trailing "/".
    package static func standardized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) where component != "." {
            if component == "..", absolute {
                if !components.isEmpty { components.removeLast() }
            } else {
                components.append(component)
            }
        }
        let joined = components.joined(separator: "/")
        return absolute ? "/" + joined : joined
    }
}
