#if os(Linux)
import Foundation
import JuiceTestSupport
import Testing

/// `juice` opens OpenSSL only when an https webhook first connects. Where the library
/// `juice` was built against cannot be loaded where it runs (missing, or broken), the
/// delivery fails with one line that says what to install, and the event waits in the
/// journal; the order itself is not touched. The broken library is a file that is no
/// library, found first through `LD_LIBRARY_PATH`.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct LibraryLoadFailureTests {
    @Test func anOpenSSLThatCannotBeLoadedIsOneLineAndTheEventWaits() throws {
        // A listening port, so the connection is made and TLS is what fails.
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"[{"type": "webhook", "name": "hook", "url": "https://127.0.0.1:\#(server.port)/hook", "retrySchedule": [3600]}]"#,
            backgroundDelivery: false)
        let libraries = workspace.file("broken-libraries")
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: libraries + "/libssl.so.3"))
        workspace.environment["LD_LIBRARY_PATH"] = libraries

        #expect(try workspace.run(["order", "kiwi"]).status == 0)
        #expect(try workspace.run(["deliver"]).status == 75)
        let row = try workspace.subscriberRows().first { $0["name"] as? String == "hook" }
        let lastError = row?["lastError"] as? String ?? ""
        print("OpenSSL not loadable: \(lastError)")
        #expect(lastError.contains("cannot load the system's OpenSSL"), "\(lastError)")
        #expect(lastError.contains("install OpenSSL's libssl"), "\(lastError)")
        #expect(row?["lag"] as? Int == 2, "\(String(describing: row))")
        let said = workspace.errors.split(separator: "\n").filter { $0.contains("cannot load the system's OpenSSL") }
        #expect(!said.isEmpty, "\(workspace.errors)")
        #expect(said.allSatisfy { !$0.contains("\u{1B}") })
        #expect(server.requests.isEmpty, "no request without TLS")
    }
}
#endif
