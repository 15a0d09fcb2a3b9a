/// How much the ``SessionStore`` holds at most, whatever visitors do: each open form holds a
/// scratchpad context, so anonymous visitors opening forms must not grow the server without
/// bound. (A form's own size is bounded by the model's length limits and the 64 KB form body.)
struct SessionLimits: Sendable {
    /// Forms one session keeps open; opening another closes its oldest.
    var formsPerSession = 20
    /// Forms all sessions keep open together; opening another closes a form of the session
    /// idle longest.
    var forms = 2_000
    /// Sessions alive at once; a new one ends the session idle longest.
    var sessions = 10_000
}
