import JuiceMakerCore
import JuicePrimitives

/// Why a plugin could not start (`EventObserver.attach(to:)`, `DurableDeliveryPlugin.makeDestination(for:)`): the kit's own error,
/// so a plugin never has to throw the core's.
///
/// The host stops the command and tells the person: a store failure in the words it
/// uses for every store failure, anything else as the plugin's message after the
/// subscriber's name.
public enum PluginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The plugin's own words, in both languages. Must never contain a secret.
    case failed(PluginMessage)
    /// The store (stock or journal) failed underneath the plugin.
    case store(StoreError)

    /// A maker's refusal as a plugin passes it on: a store failure stays one; any other
    /// refusal (a command the plugin called with a bad value) in its own words.
    public init(_ error: JuiceMakerError) {
        if case .store(let failure) = error {
            self = .store(failure)
        } else {
            self = .failed(PluginMessage(untranslated: "\(error)"))
        }
    }

    /// The English text, for logs and tests.
    public var description: String {
        switch self {
        case .failed(let message): message.english
        case .store(let failure): failure.description
        }
    }
}
