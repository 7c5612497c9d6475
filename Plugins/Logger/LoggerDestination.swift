import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// A logger as a durable destination (`EventLogger.fleetRole`): an event is delivered
/// once its line is handed to the log's `write(2)`.
struct LoggerDestination: DurableDestination {
    let logger: EventLogger

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        guard logger.write(envelope) else {
            throw DeliveryFailure(PluginMessage(english: "the log is not open", korean: "로그가 열려 있지 않습니다"))
        }
    }
}
