import CNATSLoader
import Foundation
import Testing

/// What a test that talks to NATS needs, found at run time as `juice` finds it: libnats
/// (loaded by the same loader) and a `nats-server` binary. One rule for every such
/// test: its suite carries `.requiresNATS`, which skips it with one line naming what
/// is missing. Where the run requires NATS (`JUICE_REQUIRE_FLEET=1`, which `.ci/run`
/// sets for its run with NATS installed) a missing part fails those tests instead,
/// so that run cannot pass on a skip.
package enum NATSRequirement {
    /// `nats-server` on the PATH, or where Debian and Homebrew put it.
    package static let serverBinary: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin"]
        return directories.map { "\($0)/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// What is missing here, each named with what the loader or the search said;
    /// empty when both are here.
    package static let missing: [String] = {
        var missing: [String] = []
        if let failure = juice_nats_load() { missing.append("libnats (\(String(cString: failure)))") }
        if serverBinary == nil { missing.append("nats-server (not on the PATH)") }
        return missing
    }()

    package static var isRequired: Bool { ProcessInfo.processInfo.environment["JUICE_REQUIRE_FLEET"] == "1" }

    /// Whether the suites that carry `.requiresNATS` run.
    package static var isMet: Bool { isRequired || missing.isEmpty }

    /// How the trait's comment starts, by which `checkDeclared` knows the trait.
    static let marker = "needs NATS"

    /// The one line a skipped suite shows.
    static var skipNote: Comment {
        Comment(rawValue: "\(marker): missing \(missing.joined(separator: " and ")); sudo apt-get install libnats-dev nats-server")
    }

    /// Records an issue when the running test does not carry `.requiresNATS`; called
    /// where a test starts `nats-server` or connects through libnats, so a new test
    /// that does either without the trait fails on every machine that has NATS.
    package static func checkDeclared(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let test = Test.current else { return }
        let declared = test.traits.contains { trait in
            (trait as? ConditionTrait)?.comments.contains { $0.rawValue.hasPrefix(marker) } == true
        }
        if !declared {
            Issue.record("\(test.name) \(what) without the .requiresNATS trait on its suite", sourceLocation: sourceLocation)
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Carried by every suite that starts `nats-server` or loads libnats
    /// (`NATSRequirement`).
    package static var requiresNATS: Self {
        .enabled(if: NATSRequirement.isMet, NATSRequirement.skipNote)
    }
}
