import ArgumentParser
import Synchronization
import MetronomeRender
import MetronomePendulum

/// Typed option values: each option's text is parsed by its own type as
/// swift-argument-parser reads it, once, and a bad value is that type's own
/// one-line error (`CommandFailure` gives it its status).
///
/// The parser wraps a transform's error in its own sentence ("The value 'x'
/// is invalid for '--bpm <bpm>': …"); the error is kept here as well, so
/// `CommandFailure` reports it as the type said it, with its exit status.
/// The last few are kept, not one: parses may run side by side (the tests do),
/// and each message quotes its value, so the one behind a sentence is found.
enum OptionValue {
    private static let rejected = Mutex<[CommandFailure]>([])

    private static func remember(_ error: any Error) {
        guard let failure = CommandFailure.ofLayers(error) else { return }
        rejected.withLock { kept in
            if kept.count >= 64 { kept.removeFirst() }
            kept.append(failure)
        }
    }

    /// A transform for `@Option(transform:)`: parses with `parse`, remembering a rejection.
    static func parsed<Value, Failure: Error>(_ parse: @escaping @Sendable (String) throws(Failure) -> Value) -> @Sendable (String) throws -> Value {
        { text in
            do throws(Failure) {
                return try parse(text)
            } catch {
                remember(error)
                throw error
            }
        }
    }

    /// A refusal from `validate`: kept as the rejection and handed to the parser as its own kind of error.
    static func refuse(_ error: any Error) -> any Error {
        guard let failure = CommandFailure.ofLayers(error) else { return error }
        remember(error)
        return ValidationError(failure.message)
    }

    /// The rejection behind a parser error, if a value's own type refused it.
    static func rejection(behind message: String) -> CommandFailure? {
        rejected.withLock { kept in kept.last { message.contains($0.message) } }
    }
}

// The fixed choices list their values in help and completions.
extension Easing: ExpressibleByArgument {}
extension PictureStyle: ExpressibleByArgument {}
extension PendulumMotion.ClickPosition: ExpressibleByArgument {}
extension SampleFormat: ExpressibleByArgument {}
