import Foundation
import Testing

/// Only the products' API is a promise to other packages: a module that is not a
/// product (a transport, the fleet's modules, `Spawning`, `JuiceDelivery`, a plugin, the
/// bench) declares `package`, not `public`. Read off the sources and the manifest.
@Suite(.tags(.unit)) struct ModuleAccessTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func modulesThatAreNotProductsDeclareNothingPublic() throws {
        let products = try Self.productTargets()
        #expect(products.isSuperset(of: ["JuiceMakerCore", "JuiceMakerPluginKit", "JuicePrimitives"]), "\(products.sorted())")
        var declaring: [String] = []
        for folder in ["Sources", "Plugins"] {
            let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path)
            for module in modules.sorted() where !products.contains(module) {
                declaring += try Self.publicDeclarations(in: folder + "/" + module)
            }
        }
        #expect(declaring == [], "\(declaring)")
    }

    /// A line that declares something `public` is found, and one that only says the word is not.
    @Test func aPublicDeclarationIsTold() {
        #expect(Self.declaresPublic("    @inlinable public static func f() {}"))
        #expect(Self.declaresPublic("public private(set) var count = 0"))
        #expect(Self.declaresPublic("final public class Box {}"))
        #expect(!Self.declaresPublic("    package func f() {}"))
        #expect(!Self.declaresPublic("    /// Not public: only this package uses it."))
        #expect(!Self.declaresPublic("    let text = \"public\""))
    }

    /// The targets of the manifest's library products (`.library(name: …, targets: [...])`).
    private static func productTargets() throws -> Set<String> {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: Set<String> = []
        for line in manifest.split(separator: "\n") where line.contains(".library(") {
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]"), open < close else { continue }
            for name in line[line.index(after: open)..<close].split(separator: ",") {
                targets.insert(name.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
            }
        }
        return targets
    }

    /// `file:line` of each declaration with `public` among its modifiers in the Swift files of `folder`.
    private static func publicDeclarations(in folder: String) throws -> [String] {
        guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else { return [] }
        var found: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(folder + "/" + file), encoding: .utf8)
            for (number, line) in zip(1..., text.split(separator: "\n", omittingEmptySubsequences: false)) where declaresPublic(String(line)) {
                found.append("\(folder)/\(file):\(number)")
            }
        }
        return found
    }

    /// Whether `line` begins with modifiers and attributes among which is `public`.
    private static func declaresPublic(_ line: String) -> Bool {
        let modifiers: Set<Substring> = [
            "final", "static", "class", "override", "convenience", "required", "mutating", "nonmutating", "nonisolated", "lazy",
            "indirect", "dynamic", "private(set)", "fileprivate(set)", "internal(set)", "package(set)", "consuming", "borrowing",
        ]
        for word in line.split(separator: " ") {
            if word == "public" { return true }
            guard word.hasPrefix("@") || modifiers.contains(word) else { return false }
        }
        return false
    }
}
