import FleetConfiguration
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

#if !canImport(NATSPlugin)
/// The `nats` subscriber in a build without libnats (`natsDeclaration`): the same keys
/// are declared (the config is checked and the schema printed as with NATS), and an
/// enabled one refuses to start, saying how to get NATS.
final class NATSUnavailable: EventObserver {
    static let type = Fleet.subscriberType
    static let configuration = Fleet.subscriberKeys
    /// Declared as the `nats` publisher is; it never builds.
    static let declaration = PluginDeclaration.observer(NATSUnavailable.self, type: type, configuration: configuration)

    init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        throw ConfigurationError(
            path: "\(configuration.path).type",
            plugin: PluginMessage(
                english: "this juice was built without NATS: install the NATS C client (sudo apt-get install libnats-dev) "
                    + "and rebuild (swift build); the events wait in the journal",
                korean: "이 juice는 NATS 없이 빌드되었습니다. NATS C 클라이언트를 설치하고(sudo apt-get install libnats-dev) "
                    + "다시 빌드하세요(swift build). 이벤트는 저널에서 기다립니다"))
    }

    func attach(to host: PluginHost) throws(PluginError) {}
    func shutdown(deadline: ContinuousClock.Instant) async {}
}
#endif
