/// An option's value with the text it was read from, for messages that quote the user.
struct AsTyped<Value: Sendable>: Sendable {
    let text: String
    let value: Value
}
