import Foundation
import JuiceTestSupport
import Testing

/// `juice config check` finds what would otherwise fail (or warn) only at run time, and
/// the config is read once, so it may come from a pipe.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ConfigCheckRunTimeTests {
    @Test func aLogFileInAMissingDirectoryIsAConfigErrorEverywhere() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["stock", "add", "kiwi", "1"])
        let before = sandbox.storeBytes()
        let missing = sandbox.root + "/no-such-dir"
        let config = try sandbox.write(
            #"{"subscribers": [{"type": "cli-notifier"}, {"type": "logger", "path": "\#(missing)/juice.log"}]}"#, to: "c.json")
        for arguments in [["config", "check"], ["stock"], ["order", "banana"]] {
            let result = try sandbox.run(arguments + ["--config", config])
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("subscribers[1].path"), "\(result.stderr)")
            #expect(result.stderr.contains("the directory \(missing) does not exist"), "\(result.stderr)")
        }
        #expect(sandbox.storeBytes() == before)
        let korean = try sandbox.run(["config", "check", "--config", config, "--lang", "ko"])
        #expect(korean.status == 78)
        #expect(korean.stderr.contains("디렉터리 \(missing)이(가) 없습니다"), "\(korean.stderr)")

        // The default, a bare name in the store's directory, is fine before the store exists.
        let fresh = try JuiceSandbox()
        let bare = try fresh.write(#"{"subscribers": [{"type": "logger", "path": "juice-maker.log"}]}"#, to: "c.json")
        #expect(try fresh.run(["config", "check", "--config", bare]).status == 0)
    }

    @Test func plainHTTPToAnotherMachineIsAWarningInConfigCheck() throws {
        let sandbox = try JuiceSandbox()
        let remote = try sandbox.write(
            #"{"subscribers": [{"type": "webhook", "name": "shop", "url": "http://example.com/hook"}]}"#, to: "remote.json")
        let result = try sandbox.run(["config", "check", "--config", remote])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("subscriber 'shop': warning: http://example.com/hook is plain http:// to another machine"), "\(result.stderr)")
        let json = try sandbox.run(["config", "check", "--json", "--config", remote])
        let warnings = (try json.json() as? [String: Any])?["warnings"] as? [String]
        #expect(warnings?.count == 1)

        let local = try sandbox.write(
            #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/hook"}]}"#, to: "local.json")
        let quiet = try sandbox.run(["config", "check", "--config", local])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test func aMissingVariableInADisabledSubscriberIsOnlyAWarning() throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(
            #"""
            {"subscribers": [{"type": "webhook", "enabled": false, "url": "https://example.com/", "secret": "${JUICE_TEST_UNSET_SECRET}"}]}
            """#, to: "c.json")
        #expect(try sandbox.run(["stock", "--config", config]).status == 0)
        let check = try sandbox.run(["config", "check", "--config", config])
        #expect(check.status == 0)
        #expect(check.stderr.contains("JUICE_TEST_UNSET_SECRET"), "\(check.stderr)")
        let enabled = try sandbox.write(
            #"""
            {"subscribers": [{"type": "webhook", "url": "https://example.com/", "secret": "${JUICE_TEST_UNSET_SECRET}"}]}
            """#, to: "enabled.json")
        #expect(try sandbox.run(["stock", "--config", enabled]).status == 78)
    }

    /// Only a regular file is read as config: a FIFO nobody writes to is refused at
    /// once (before, `juice` waited for a writer forever), and so is a pipe
    /// (`/dev/stdin`), one line and 78, in the config's language's place the locale's.
    @Test func aConfigThatIsNotARegularFileIsRefusedAtOnce() throws {
        let sandbox = try JuiceSandbox()
        let fifo = sandbox.root + "/config.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (arguments, kind) in [(["stock", "--config", fifo], "a FIFO"), (["config", "check", "--config", sandbox.root], "a directory")] {
            let running = try sandbox.start(arguments, inputFile: "/dev/null")
            let process = running.process
            let exited = exits(process, within: .seconds(20))
            if !exited {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            #expect(exited, "juice \(arguments) waited for the FIFO's writer")
            #expect(process.terminationStatus == 78)
            let errors = running.stderr
            #expect(errors.contains("not a regular file (\(kind))"), "\(errors)")
            #expect(errors.split(separator: "\n").count == 1, "\(errors)")
        }
        let piped = try sandbox.start(["config", "show", "--config", "/dev/stdin"])
        try piped.type(#"{"initialStock": 7, "subscribers": []}"#)
        #expect(piped.finish() == 78)
        #expect(piped.stderr.contains("not a regular file (a FIFO)"), "\(piped.stderr)")
    }

    /// Linear checking still finds a duplicate name among 8,000 subscribers (the time is
    /// measured by `juice-bench config`, not asserted here).
    @Test func aDuplicateNameAmongEightThousandSubscribersIsFound() throws {
        let sandbox = try JuiceSandbox()
        var entries = (0..<8_000).map { #"{"type": "cli-notifier", "name": "n\#($0)", "enabled": false}"# }
        entries.append(#"{"type": "cli-notifier", "name": "n4321", "enabled": false}"#)
        let config = try sandbox.write(#"{"subscribers": [\#(entries.joined(separator: ","))]}"#, to: "big.json")
        let result = try sandbox.run(["config", "check", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("subscribers[8000].name"), "\(result.stderr)")
        #expect(result.stderr.contains("subscribers[4321]"), "\(result.stderr)")
    }
}
