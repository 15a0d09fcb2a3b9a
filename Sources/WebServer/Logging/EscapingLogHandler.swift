import Logging

/// A log handler that escapes the message and metadata values of every event with
/// ``LogEscaping/escape(_:)`` before passing it on, so request input written into a log line
/// (a path, a header, an error that quotes a form field) can never start a line of its own.
///
/// `HTTPServer` wraps the logger it is given in one; wrap other loggers that write what
/// visitors sent with ``Logging/Logger/escapingControlCharacters()``.
public struct EscapingLogHandler: LogHandler {
    /// The handler that writes the escaped events.
    public var wrapped: any LogHandler

    /// A handler that escapes each event, then hands it to `wrapped`.
    public init(wrapping wrapped: any LogHandler) {
        self.wrapped = wrapped
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    /// Escaped when set: a value taken from a request may be attached to a logger too.
    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue.mapValues(Self.escape) }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue.map(Self.escape) }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: LogEscaping.escape(event.message.description))
        event.metadata = event.metadata?.mapValues(Self.escape)
        wrapped.log(event: event)
    }

    private static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(LogEscaping.escape(text))
        case .stringConvertible(let convertible): .string(LogEscaping.escape(convertible.description))
        case .array(let values): .array(values.map(escape))
        case .dictionary(let values): .dictionary(values.mapValues(escape))
        }
    }
}

extension Logger {
    /// This logger with its handler wrapped in an ``EscapingLogHandler``; itself when it
    /// already is, so wrapping twice never escapes a backslash twice.
    public func escapingControlCharacters() -> Logger {
        guard !(handler is EscapingLogHandler) else { return self }
        var logger = self
        logger.handler = EscapingLogHandler(wrapping: handler)
        return logger
    }
}
