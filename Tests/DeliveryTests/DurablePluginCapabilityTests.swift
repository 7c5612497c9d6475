import CommandPlugin
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
import WebhookPlugin

/// What the durable plugins tell the host through the kit's capabilities, which the
/// CLI reads instead of testing for their types.
@Suite(.tags(.unit)) struct DurablePluginCapabilityTests {
    private func isFleetSubscriber(_ plugin: any JuiceMakerPlugin) -> Bool {
        if case .subscriber = plugin.fleetRole { true } else { false }
    }

    @Test func theWebhookAndTheCommandAreFedFromTheFleetByTheirOwnRunners() throws {
        let rig = Rig.delivery()
        let webhook = try Webhook(configuration: section([("url", .string("https://example.com/hook"))]), context: rig.context())
        let command = try CommandSubscriber(configuration: section([("command", .array([.string("/bin/cat")]))]), context: rig.context())
        for plugin: any JuiceMakerPlugin in [webhook, command] {
            #expect(isFleetSubscriber(plugin), "\(type(of: plugin))")
            #expect(plugin.durable != nil)
            #expect(plugin.startWarnings.isEmpty)
            #expect(type(of: plugin).eventRenderer(EventRenderingStyle(language: .english, color: false, asks: true)) == nil)
        }
    }
}
