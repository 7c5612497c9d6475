// swift-tools-version:6.0
import PackageDescription

// A third party's package: a destination of its own (JSONLinesPlugin, config type
// "jsonl") and its own juice, `juice-jsonl`: the plugins shipped with JuiceMaker and
// that one. CI builds it against this checkout and runs it (.ci/third-party).
//
// It depends on JuiceMaker by path, three directories up; another package names its URL
// and a version. `name:` because a path's package is otherwise known by its directory's
// name, which is the clone's. Target and product names are unique across packages, and
// JuiceMaker has a `juice`: so `juice-jsonl`, which calls itself juice all the same.
let package = Package(
    name: "ThirdPartyPlugin",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "juice-jsonl", targets: ["JuiceJSONL"])],
    dependencies: [.package(name: "JuiceMaker", path: "../../..")],
    targets: [
        .target(
            name: "JSONLinesPlugin",
            dependencies: [
                .product(name: "JuiceMakerPluginKit", package: "JuiceMaker"),
                .product(name: "JuiceMakerCore", package: "JuiceMaker"),
                .product(name: "JuicePrimitives", package: "JuiceMaker"),
            ]),
        .executableTarget(name: "JuiceJSONL", dependencies: ["JSONLinesPlugin", .product(name: "JuiceCLI", package: "JuiceMaker")]),
    ],
    swiftLanguageModes: [.v6]
)
