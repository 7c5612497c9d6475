@_exported import EventBus
