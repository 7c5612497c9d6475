import Foundation
import JuiceTestSupport
import Testing

/// `config/juice-deliver.service`, the systemd unit for `juice deliver --follow`:
/// `systemd-analyze verify` finds nothing in it (where systemd is installed), and it
/// says what a service needs: SIGTERM's 143 is a success, a failure restarts it, the
/// store is in its state directory, and it writes nowhere else but the textfile
/// directory of node_exporter.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ServiceUnitTests {
    private static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/juice-deliver.service").path

    /// The `[Service]` settings: key → every value it is given, in order.
    private func service(_ text: String) -> [String: [String]] {
        var settings: [String: [String]] = [:]
        var section = ""
        for line in text.split(separator: "\n").map(String.init) where !line.hasPrefix("#") {
            if line.hasPrefix("[") {
                section = line
            } else if section == "[Service]", let equals = line.firstIndex(of: "=") {
                settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
            }
        }
        return settings
    }

    @Test func theUnitSaysWhatTheServiceNeeds() throws {
        let settings = service(try String(contentsOfFile: Self.unit, encoding: .utf8))
        #expect(settings["ExecStart"] == ["/usr/local/bin/juice deliver --follow"])
        #expect(settings["SuccessExitStatus"] == ["143"])
        #expect(settings["ExecReload"] == ["/bin/kill -HUP $MAINPID"], "SIGHUP reloads juice deliver --follow")
        #expect(settings["Restart"] == ["on-failure"])
        #expect(settings["NoNewPrivileges"] == ["yes"])
        #expect(settings["ProtectSystem"] == ["strict"])
        #expect(settings["ProtectHome"] == ["yes"])
        #expect(settings["StateDirectory"] == ["juice-maker"])
        #expect(settings["Environment"]?.contains("JUICE_MAKER_STORE=%S/juice-maker/juice.db") == true)
        #expect(settings["ReadWritePaths"] == ["%S/juice-maker", "-/var/lib/prometheus/node-exporter"])
    }

    /// Verified as installed, with ExecStart pointing at the built `juice` (verify
    /// checks the program exists): exit 0 and not one line about the unit.
    @Test func systemdFindsNothingInTheUnit() throws {
        let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: FileManager.default.isExecutableFile)
        guard let analyze else {
            print("skipped: systemd-analyze verify (systemd-analyze is not installed; Debian package systemd)")
            return
        }
        let directory = try TemporaryDirectory()
        let copy = directory.file("juice-deliver.service")
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        try text.replacingOccurrences(of: "/usr/local/bin/juice", with: JuiceSandbox.binary).write(toFile: copy, atomically: true, encoding: .utf8)
        let verify = try runProgram(analyze, ["verify", copy])
        let printed = verify.stdout + verify.stderr
        #expect(verify.status == 0, "\(printed)")
        #expect(!printed.contains("juice-deliver"), "\(printed)")
    }
}
