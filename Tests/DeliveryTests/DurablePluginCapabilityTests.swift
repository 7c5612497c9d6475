import CommandPlugin
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
import WebhookPlugin

/// What the durable plugins tell the host through their declarations, which the CLI
/// reads instead of testing for their types.
@Suite(.tags(.unit)) struct DurablePluginCapabilityTests {
    @Test func theWebhookAndTheCommandAreFedFromTheFleetByTheHostsRunners() throws {
        let webhook = section([("url", .string("https://example.com/hook"))])
        let command = section([("command", .array([.string("/bin/cat")]))])
        for (declaration, section) in [(Webhook.declaration, webhook), (CommandSubscriber.declaration, command)] {
            #expect(declaration.isDurable, "\(declaration.type)")
            #expect(declaration.isFedFromFleet)
            guard case .subscriber = declaration.durableFleetRole else {
                Issue.record("\(declaration.type) is not fed from the fleet by a runner")
                continue
            }
            #expect(declaration.startWarnings(section).isEmpty)
            #expect(declaration.eventRenderer == nil)
        }
        #expect(Webhook.declaration.secretKeys == ["secret"])
    }
}
