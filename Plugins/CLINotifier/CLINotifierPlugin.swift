import JuiceMakerCore
enum NotifierPlaceholder {}
