/// An Ableton Link call that failed: the Link C function, through `CLink`.
///
/// Link reports no codes, only that a call threw (it could not open its
/// sockets or start its threads), so the call's name is all there is to say.
package struct LinkError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The `mtl_link_…` function that failed.
    package let call: String

    package init(call: String) {
        self.call = call
    }

    package var description: String { "Ableton Link: \(call) failed" }

    /// Returns when `succeeded`, else throws for `call`. Every fallible Link call goes through here.
    static func check(_ succeeded: Bool, _ call: String) throws(LinkError) {
        guard succeeded else { throw LinkError(call: call) }
    }
}
