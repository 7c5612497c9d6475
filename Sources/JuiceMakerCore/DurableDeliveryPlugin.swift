/// A plugin that must not lose events: it delivers through a `DurableDelivery`
/// runner with its own cursor in the journal (the webhook poster, the command
/// subscriber).
///
/// Besides what `JuiceMakerPlugin` promises, the host may drive the runner directly:
/// `juice deliver` calls `deliverPending`, `juice deliver --follow` calls `follow`,
/// `juice subscribers retry` calls `retry`. `shutdown(deadline:)` still ends it.
public protocol DurableDeliveryPlugin: JuiceMakerPlugin {
    /// The runner, once `attach` has run; `nil` before.
    var delivery: DurableDelivery? { get }
}
