#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A request as the client sends it: `method` to the target with these header fields
/// and this body. `Host`, `Content-Length` and (from the URL) `Authorization` are added.
package struct HTTPRequest: Sendable {
    package var method: String
    package var fields: [(name: String, value: String)]
    package var body: [UInt8]

    package init(method: String = "POST", fields: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.fields = fields
        self.body = body
    }

    /// The request's bytes: request line, header section, body. A field that could
    /// break the header section (a line break in a value, a bad name) is refused.
    func serialized(for target: HTTPTarget) throws(HTTPClientError) -> [UInt8] {
        var head = "\(method) \(target.requestTarget) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        if let authorization = target.authorization { head += "Authorization: \(authorization)\r\n" }
        for (name, value) in fields {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPResponseHead.isTokenByte),
                value.utf8.allSatisfy(HTTPResponseHead.isFieldValueByte)
            else { throw .system("the header field \(name) cannot be sent: it holds a line break or control character") }
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        var bytes = Array(head.utf8)
        bytes += body
        return bytes
    }
}
