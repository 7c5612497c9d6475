import JuiceMakerCore
enum LoggerPlaceholder {}
