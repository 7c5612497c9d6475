import JuiceMakerCore
import CCrypto
enum WebhookPlaceholder {}
