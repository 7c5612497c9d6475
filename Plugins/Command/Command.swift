import JuiceMakerCore
enum CommandPlaceholder {}
