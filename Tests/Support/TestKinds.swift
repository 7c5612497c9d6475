import Foundation
import Testing

/// The kinds of test suite. Every suite carries `.unit`, or one or more of the
/// others together with `.notInUnitRun` (`TestKindTests` holds every suite to that).
/// The unit suites alone: `JUICE_TESTS=unit swift test --skip-build` (the Testing
/// article).
extension Tag {
    /// Needs nothing but this process, and is quick: no child process, no server.
    @Tag package static var unit: Self
    /// Starts a child process: `juice`, a shell, nats-server, groff, promtool, or the
    /// test binary itself (an exit test).
    @Tag package static var process: Self
    /// Needs nats-server and libnats.
    @Tag package static var nats: Self
    /// Takes more than about five seconds alone.
    @Tag package static var slow: Self
}

/// Which suites a run includes: every one, or with `JUICE_TESTS=unit` the `.unit`
/// suites only.
package enum TestSelection {
    /// The variable's value (empty when it is not set).
    package static let requested = ProcessInfo.processInfo.environment["JUICE_TESTS"] ?? ""
    /// The values it may have: `unit`, `all`, or unset.
    package static let known = ["", "all", "unit"]
    package static var unitOnly: Bool { requested == "unit" }
}

extension Trait where Self == ConditionTrait {
    /// Carried by every suite that is not `.unit`: skipped when `JUICE_TESTS=unit`.
    package static var notInUnitRun: Self {
        .disabled(if: TestSelection.unitOnly, "JUICE_TESTS=unit runs the unit suites only")
    }
}
