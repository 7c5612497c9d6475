import Foundation
import JuiceTestSupport
import Testing

/// Issue 34, item 5: the adversary lives in the project. Copies of a real store are
/// damaged (FuzzStore, DamageKind) and recovered in process; each outcome is held to
/// the truth read before the damage (DamageOracle).
///
/// A fixed set of cases runs with every `swift test`. With `JUICE_DAMAGE_FUZZ_SECONDS=N`
/// set, `randomCases` runs new random cases for N seconds and prints each failing one
/// as a `DamageCase(…)` to add to `kept` (CI runs it after the parser fuzzers). A
/// recovery that traps ends the process: the case is the last "damage fuzz: trying"
/// line printed.
///
/// Every test here runs on a thread of its own (`.offPool`), never on the cooperative
/// pool: a kind takes seconds of CPU, and holding the pool's threads (two on two cores)
/// that long stalls every other suite running beside it.
@Suite(.tags(.slow), .notInUnitRun, .offPool) struct DamageFuzzTests {
    /// The stores the fixed set damages (each built once, with its own seeded history):
    /// 1 and 2 laid out as older versions created stores, 3 as stores are created now
    /// (`FuzzStore.legacyLayout`).
    static let fixedStores: [UInt64] = [1, 2, 3]
    /// Seeds per kind and store in the fixed set.
    static let fixedSeeds: ClosedRange<UInt64> = 1...20

    /// Cases the random mode found failing, kept as tests (what each showed on 909d245).
    static let kept: [DamageCase] = [
        // An index leaf copied over the cursors' leaf: 83 cursors named by event ids.
        DamageCase(store: 1, kind: .pageDuplicate, seed: 7_794_874_298_742_628_343),
        // The journal_by_type index leaf copied over the cursors' leaf: 105 cursors.
        DamageCase(store: 1, kind: .pageDuplicate, seed: 1_772_668_026_200_087_921),
        // Other small trees' leaves copied over the cursors' leaf, which SQLite reads as
        // cursors: the dead letters' index (hook at 445), the retry states (gone at 2),
        // the stock (banana at 54).
        DamageCase(store: 1, kind: .pageDuplicate, seed: 3_634_157_734_099_250_033),
        DamageCase(store: 3, kind: .pageDuplicate, seed: 9_396_702_110_131_696_059),
        DamageCase(store: 2, kind: .pageDuplicate, seed: 2_125_030_491_994_215_417),
        // A dead letter whose event id is damaged: the new store's dead letters do not read.
        DamageCase(store: 1, kind: .byteFlips, seed: 8_924_261_895_498_254_213),
        // A dead letter whose subscriber is invalid UTF-8.
        DamageCase(store: 2, kind: .byteFlips, seed: 1_710_906_664_387_225_489),
        // A journal leaf's cell count: the tail is lost, the next order reuses 477.
        DamageCase(store: 1, kind: .btree, seed: 2_139_750_388_410_001_995),
        // The schema format field: SQLite refuses, recovery saves nothing.
        DamageCase(store: 1, kind: .headerField, seed: 11_685_198_760_750_931_058),
        // The application id (68–71) zeroed, and set to 0xFFFFFFFF: refused as another
        // application's database though the pages hold a store's tables (on 444edb4).
        DamageCase(store: 2, kind: .headerField, seed: 3_654_673_845_375_397_779),
        DamageCase(store: 1, kind: .headerField, seed: 17_108_343_092_594_545_776),
        // The schema version (60–63) set to 125146401 and to 7: refused as a newer juice's.
        DamageCase(store: 2, kind: .headerField, seed: 13_539_850_981_172_295_401),
        DamageCase(store: 1, kind: .headerField, seed: 13_061_936_762_912_175_819),
        // A store cut inside the stock's page: its rows' missing bytes read as zeros
        // (strawberry 0 where the table held 11).
        DamageCase(store: 2, kind: .truncation, seed: 10_059_163_035_987_169_625),
        // One bit of a dead letter's subscriber flipped ("hook" read as "h_ok"): nothing in
        // the file can tell, so it is a note, as any other self-consistent value is.
        DamageCase(store: 1, kind: .byteFlips, seed: 10_953_242_451_057_984_355),
        // Sixteen flips on page 1, one in the application id.
        DamageCase(store: 2, kind: .byteFlips, seed: 6_332_839_916_017_895_763),
    ]

    /// The fixed set for one kind: every store × `fixedSeeds` (every listed page size
    /// for `pageSize`), and the kept cases of that kind.
    static func fixedCases(_ kind: DamageKind) -> [DamageCase] {
        let seeds = kind == .pageSize ? 0...UInt64(FuzzStore.pageSizeValues.count - 1) : fixedSeeds
        return fixedStores.flatMap { store in seeds.map { DamageCase(store: store, kind: kind, seed: $0) } }
            + kept.filter { $0.kind == kind }
    }

    /// The seconds `JUICE_DAMAGE_FUZZ_SECONDS` asks the random mode for, if set.
    static let randomSeconds: Int? = ProcessInfo.processInfo.environment["JUICE_DAMAGE_FUZZ_SECONDS"].flatMap { Int($0) }

    @Test(arguments: DamageKind.allCases)
    func fixedCasesRecoverSoundly(kind: DamageKind) throws {
        let directory = try TemporaryDirectory(prefix: "juice-damagefuzz-")
        defer { directory.remove() }
        var slowest: DamageOutcome?
        var failing = 0
        let cases = Self.fixedCases(kind)
        for damage in cases {
            let outcome = try DamageOracle.run(damage, in: directory)
            if outcome.seconds > slowest?.seconds ?? -1 { slowest = outcome }
            if !outcome.violations.isEmpty { failing += 1 }
            for violation in outcome.violations {
                Issue.record("\(outcome.line): \(violation)")
            }
            for note in outcome.notes { print("damage fuzz: note: \(outcome.damage): \(note)") }
        }
        print("damage fuzz: \(kind): \(cases.count) cases, \(failing) failing; slowest \(slowest?.line ?? "none")")
    }

    @Test(.enabled(if: randomSeconds != nil, "JUICE_DAMAGE_FUZZ_SECONDS is not set"))
    func randomCases() throws {
        let seconds = try #require(Self.randomSeconds)
        let directory = try TemporaryDirectory(prefix: "juice-damagefuzz-")
        defer { directory.remove() }
        var random = SystemRandomNumberGenerator()
        let deadline = ContinuousClock.now + .seconds(seconds)
        var tried = 0
        var failing: [DamageCase] = []
        var slowest: DamageOutcome?
        while ContinuousClock.now < deadline {
            let damage = DamageCase(
                store: Self.fixedStores.randomElement(using: &random) ?? 1, kind: DamageKind.allCases.randomElement(using: &random) ?? .byteFlips,
                seed: random.next())
            print("damage fuzz: trying \(damage)")
            fflush(nil)
            let outcome = try DamageOracle.run(damage, in: directory)
            tried += 1
            if outcome.seconds > slowest?.seconds ?? -1 { slowest = outcome }
            guard !outcome.violations.isEmpty else { continue }
            failing.append(damage)
            print("damage fuzz: FAILING \(outcome.line)")
            for violation in outcome.violations { Issue.record("\(outcome.line): \(violation)") }
        }
        print("damage fuzz: \(tried) random cases in \(seconds) s, \(failing.count) failing; slowest \(slowest?.line ?? "none")")
        if !failing.isEmpty {
            print("damage fuzz: keep these in DamageFuzzTests.kept:\n" + failing.map { "    \($0)," }.joined(separator: "\n"))
        }
    }
}
