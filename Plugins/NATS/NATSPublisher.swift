import FleetConfiguration
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import NATSClient

/// Publishes each event to NATS JetStream, at least once, in journal order: the
/// fleet's durable subscriber.
///
/// Config (`type: "nats"`): the keys of `Fleet.subscriberKeys` (`url` required;
/// `subjectPrefix`, `stream`, `replicas`, `maxAge`, `maxBytes`, `discard`,
/// `credentials` or `token`, `tlsCA`, `tlsCertificate` with `tlsKey`, `events`, `timeoutSeconds`, `retrySchedule`).
///
/// The host delivers durably, as to the webhook: each event is one
/// JetStream publish to `<prefix>.<machine>.<kind>.<subject>`, body the CloudEvents
/// structured JSON, header `content-type: application/cloudevents+json` (the name the
/// CloudEvents NATS binding reads; NATS headers are case-sensitive) and
/// `Nats-Msg-Id: <event id>` (the stream's duplicate window drops a resend). The
/// cursor moves only after the PubAck. The stream is created when missing (subjects
/// `<prefix>.>`, file storage, `replicas`, the limits `retention` sets), and an
/// existing stream is brought to the limits `retention` sets. An unreachable server is retried on the
/// schedule; refused credentials or a stream with other subjects stop delivery
/// (kept in the journal) until `juice subscribers retry`.
package final class NATSPublisher: DurableDeliveryPlugin {
    package static let type = Fleet.subscriberType
    package static let configuration = Fleet.subscriberKeys
    /// A durable plugin that publishes this machine's events to the fleet: not fed from
    /// the fleet's stream (that would echo them).
    package static let declaration = PluginDeclaration.destination(
        NATSPublisher.self, type: type, configuration: configuration, fedFromFleet: false)
    /// The retry schedule unless `retrySchedule` says otherwise: short first steps, so
    /// a brief outage costs seconds, then up to 10 h (about 28 h in all).
    package static let defaultSchedule = RetrySchedule(delays: [1, 2, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 18000, 36000, 36000])

    package let options: NATSOptions
    package let subjectPrefix: String
    package let stream: String
    package let replicas: Int
    /// The stream's limits (`maxAge`, `maxBytes`, `discard`).
    package let retention: StreamRetention
    package let eventKinds: Set<EventKind>?
    package let retrySchedule: RetrySchedule

    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        options = try Self.options(configuration, context: context, name: "juice \(context.name)")
        subjectPrefix = try Fleet.subjectPrefix(of: configuration)
        stream = try Fleet.stream(of: configuration)
        replicas = Int(try configuration.number(Fleet.replicasKey) ?? 1)
        retention = StreamRetention(
            maxAge: try configuration.number(Fleet.maxAgeKey), maxBytes: try configuration.number(Fleet.maxBytesKey).map { Int64($0) },
            discard: try configuration.string(Fleet.discardKey).flatMap(StreamRetention.Discard.init(rawValue:)))
        eventKinds = try configuration.eventKinds(Fleet.eventsKey)
        retrySchedule = try configuration.retrySchedule(.retrySchedule) ?? Self.defaultSchedule
    }

    /// The connection options a `nats` section (or `fleet` section) describes: checks
    /// `url`, `credentials` (the file must exist), `token` and the TLS files (`Fleet.tlsFiles`).
    package static func options(
        _ configuration: PluginConfiguration, context: PluginContext, name: String
    ) throws(ConfigurationError) -> NATSOptions {
        guard let servers = try Fleet.servers(of: configuration, key: Fleet.urlKey) else {
            throw Fleet.urlKey.missing(in: configuration.path)
        }
        let credentials = try Fleet.credentialsFile(of: configuration, relativeTo: context.stateDirectory)
        let timeout = try configuration.number(Fleet.timeoutKey) ?? Fleet.defaultTimeoutSeconds
        return NATSOptions(
            servers: servers, token: try configuration.string(Fleet.tokenKey), credentialsFile: credentials,
            tls: try Fleet.tlsFiles(of: configuration, relativeTo: context.stateDirectory),
            timeout: timeout, reconnects: true, name: name)
    }

    /// The events it publishes, in journal order, on its schedule.
    package var deliverySettings: DeliverySettings { DeliverySettings(kinds: eventKinds, schedule: retrySchedule) }

    /// The stream as a destination; the connection is made on the first publish.
    /// Events whose `source` names no machine go to the subjects of the maker's.
    package func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination {
        NATSDestination(
            options: options, subjectPrefix: subjectPrefix, stream: stream, replicas: replicas, retention: retention,
            machine: Fleet.machine(fromSource: host.maker.source) ?? Fleet.defaultMachineName, kinds: eventKinds)
    }
}
