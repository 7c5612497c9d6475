import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// A logger as a durable destination (`EventLogger.fleetRole`): an event is delivered
/// once its line is handed to the log's `write(2)`.
struct LoggerDestination: DurableDestination {
    let logger: EventLogger

    /// One at a time, in journal order.
    var intake: DeliveryIntake { .window(1) }

    /// Writes each event's line; answered at once.
    func send(_ offer: DeliveryOffer) {
        for (position, event) in zip(0..., offer.events) {
            offer.answer(
                position,
                logger.write(event.envelope) ? .accepted : .retry(PluginMessage(english: "the log is not open", korean: "로그가 열려 있지 않습니다")))
        }
    }

    /// Nothing to cancel: a line is written at once.
    func cancelSends() {}

    /// Nothing to release: the logger closes its log when it shuts down.
    func stop(deadline: ContinuousClock.Instant) async {}
}
